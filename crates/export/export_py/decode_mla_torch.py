try:
    import torch
    import torch.nn as nn
except ImportError:
    torch = None

torch_mla = {}  # the PyTorch decoding's output rows and final cache
if torch is None:
    print("PyTorch check skipped: `import torch` failed (pip install torch to run it)")
elif mla_decoded is not None:
    torch.set_default_dtype(torch.float64)  # the page computes in float64

    def linear(W, b):  # nn.Linear stores W transposed: (out, in)
        layer = nn.Linear(*W.shape)
        with torch.no_grad():
            layer.weight.copy_(torch.tensor(W.T))
            layer.bias.copy_(torch.tensor(b))
        return layer

    def rms_norm_layer(w):  # nn.RMSNorm's x * rsqrt(mean(x^2) + eps) * weight is DeepseekV3RMSNorm's
        layer = nn.RMSNorm(len(w), eps=mla_eps)
        with torch.no_grad():
            layer.weight.copy_(torch.tensor(w))
        return layer

    def rotate_half(x):  # Hugging Face's, as in modeling_llama.py
        x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
        return torch.cat((-x2, x1), dim=-1)

    def torch_turn(x, start):  # x: (B, heads, n, d_rope) -> turned at positions start, start + 1, ...
        if rope_style is None:
            return x
        GATHER_TORCH
        d = x.shape[-1]
        inv_freq = torch.from_numpy(scale_inv_freq(1.0 / rope_base ** (np.arange(0, d, 2) / d)))  # theta_i
        freqs = torch.outer(torch.arange(start, start + x.shape[2], dtype=torch.float64), inv_freq)  # (n, d/2)
        if rope_style == "half":  # q * cos + rotate_half(q) * sin, times YaRN's attention factor (1 otherwise)
            emb = torch.cat((freqs, freqs), dim=-1)
            return (x * emb.cos() + rotate_half(x) * emb.sin()) * rope_attention_factor
        # DeepSeek-V2's apply_rotary_emb: the pairs (2i, 2i+1) as complex numbers times e^{i pos theta}
        freqs_cis = torch.polar(torch.full_like(freqs, rope_attention_factor), freqs)
        x_ = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2).contiguous())
        return torch.view_as_real(x_ * freqs_cis).flatten(-2)

    # DeepSeek's module names, the page's weights copied in
    kv_a_proj_with_mqa, kv_a_layernorm = linear(W_kv_a, b_kv_a), rms_norm_layer(kv_a_norm_weight)
    kv_b_proj, o_proj = linear(W_kv_b, b_kv_b), linear(W_o, b_o)
    TORCH_Q_MODULES
    # Decoding as DeepSeek-V3's inference code runs it (attn_impl="absorb"): the cache holds the latents
    # and the RoPE keys only; W_UK is folded into the query and W_UV applied after the weighted sum,
    # so no head's key or value is ever formed.
    wkv_b = kv_b_proj.weight.view(h, d_nope + d_v, r_kv)  # per head: the key rows, then the value rows
    bkv_b = kv_b_proj.bias.view(h, d_nope + d_v)
    with torch.no_grad():
        x_all = torch.tensor(X_IN)
        rows_out = []
        kv_cache = torch.zeros(B, 0, r_kv)  # (B, L, r_kv)
        pe_cache = torch.zeros(B, 1, 0, d_rope)  # (B, 1, L, d_rope)
        cached_t = []

        def cache_rows(rows, start):
            kv = kv_a_proj_with_mqa(rows)  # (B, n, r_kv + d_rope)
            c, k_pe = torch.split(kv, [r_kv, d_rope], dim=-1)
            return kv_a_layernorm(c), torch_turn(k_pe.unsqueeze(1), start)

        if cross:
            kv_cache, pe_cache = cache_rows(torch.tensor(KV_IN), 0)
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
