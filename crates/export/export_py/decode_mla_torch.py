torch_mla = {}  # the PyTorch decoding's output rows and final cache
if torch is not None and mla_decoded is not None:
    # the modules of the whole run's MultiHeadLatentAttention above: DeepSeek's names, the page's weights
    kv_a_proj_with_mqa, kv_a_layernorm = mla_attn.kv_a_proj_with_mqa, mla_attn.kv_a_layernorm
    kv_b_proj, o_proj = mla_attn.kv_b_proj, mla_attn.o_proj
    TORCH_Q_MODULES
    # Decoding as DeepSeek-V3's inference code runs it (attn_impl="absorb"): the cache holds the latents
    # and the RoPE keys only; W_UK is folded into the query and W_UV applied after the weighted sum,
    # so no head's key or value is ever formed.
    wkv_b = kv_b_proj.weight.view(h, d_nope + d_v, r_kv)  # per head: the key rows, then the value rows
    bkv_b = kv_b_proj.bias.view(h, d_nope + d_v)
    with torch.no_grad():
        x_all = torch.tensor(numpy_steps["X_IN"])  # the NumPy steps (x is the PyTorch model's tensor by now)
        rows_out = []
        kv_cache = torch.zeros(B, 0, r_kv)  # (B, L, r_kv)
        pe_cache = torch.zeros(B, 1, 0, d_rope)  # (B, 1, L, d_rope)
        cached_t = []

        def cache_rows(rows, start):
            kv = kv_a_proj_with_mqa(rows)  # (B, n, r_kv + d_rope)
            c, k_pe = torch.split(kv, [r_kv, d_rope], dim=-1)
            return kv_a_layernorm(c), torch_turn(k_pe.unsqueeze(1), start)

        if cross:
            kv_cache, pe_cache = cache_rows(torch.tensor(numpy_steps["KV_IN"]), 0)
            cached_t = list(range(T_k))
        for t in range(T):
            x_t = x_all[:, t : t + 1]
            q = TORCH_Q.view(B, 1, h, d_nope + d_rope).transpose(1, 2)  # (B, h, 1, d_nope + d_rope)
            q_nope, q_pe = torch.split(q, [d_nope, d_rope], dim=-1)
            q_pe = torch_turn(q_pe, t)
            if not cross:
                c_t, pe_t = cache_rows(x_t, t)
                kv_cache, pe_cache = torch.cat([kv_cache, c_t], dim=1), torch.cat([pe_cache, pe_t], dim=2)
                cached_t.append(t)
                stay = [p for p in cached_t if window is None or p > t - window or p < keep_first]
                rows = [cached_t.index(p) for p in stay]
                kv_cache, pe_cache, cached_t = kv_cache[:, rows], pe_cache[:, :, rows], stay
            q_latent = torch.einsum("bhqn,hnr->bhqr", q_nope, wkv_b[:, :d_nope])  # W_UK absorbed: (B, h, 1, r_kv)
            s = (torch.einsum("bhqr,blr->bhql", q_latent, kv_cache)
                 + (q_nope * bkv_b[:, :d_nope].view(1, h, 1, d_nope)).sum(-1, keepdim=True)
                 + q_pe @ pe_cache.transpose(-1, -2))  # (B, h, 1, L)
            s = s * scale if scale is not None else s / math.sqrt(d_k)
            s = s if softcap is None else softcap * torch.tanh(s / softcap)
            pos = torch.tensor(cached_t)
            if use_alibi:
                s = s + torch.tensor(alibi_slopes(h)).view(1, h, 1, 1) * alibi_distance(pos - t).view(1, 1, 1, -1)
            s = s.masked_fill(torch.from_numpy(mask[:, None, t : t + 1, cached_t]), fill)
            if sinks is not None:  # each head's sink logit as one more column, dropped after the softmax
                s = torch.cat([s, torch.tensor(sinks).view(1, h, 1, 1).expand(B, h, 1, 1)], dim=-1)
                w = torch.softmax(s, dim=-1)[..., :-1]
            else:
                w = torch.softmax(s, dim=-1)
            # W_UV after the weighted sum of latents; its bias weighted by the weights' sum (1 without sinks)
            latent_ctx = torch.einsum("bhql,blr->bhqr", w, kv_cache)  # (B, h, 1, r_kv)
            ctx = (torch.einsum("bhqr,hvr->bhqv", latent_ctx, wkv_b[:, d_nope:])
                   + w.sum(-1, keepdim=True) * bkv_b[:, d_nope:].view(1, h, 1, d_v))  # (B, h, 1, d_v)
            rows_out.append(o_proj(ctx.transpose(1, 2).reshape(B, 1, h * d_v)))
        torch_mla = {"decoded": torch.cat(rows_out, dim=1), "c_kv": kv_cache, "k_rot": pe_cache, "cached": cached_t}
    print(f"PyTorch {torch.__version__}: decoded {tuple(torch_mla['decoded'].shape)} with W_UK and W_UV absorbed")
