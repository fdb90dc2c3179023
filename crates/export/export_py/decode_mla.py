def latent_cache_rows(rows, start):
    """(B, n, d_model) key/value rows at positions start, start + 1, ... -> what MLA caches for
    them: the latents c_KV (B, n, r_kv) and the shared RoPE keys k_rot (B, 1, n, d_rope), each
    turned at its own position."""
    kv_a_t = rows @ W_kv_a + b_kv_a  # (B, n, r_kv + d_rope)
    c_t = rms_norm_rows(kv_a_t[..., :r_kv], kv_a_norm_weight)  # (B, n, r_kv)
    k_pe_t = kv_a_t[..., r_kv:][:, None]  # (B, 1, n, d_rope): one key for every head
    return c_t, TURN(k_pe_t, start)


def latent_query(x_t, t):
    """The new token's query heads, (B, h, 1, d_nope + d_rope), the rope part turned at position t."""
    q_t = (Q_PROJ).reshape(B, 1, h, d_nope + d_rope).transpose(0, 2, 1, 3)
    return np.concatenate([q_t[..., :d_nope], TURN(q_t[..., d_nope:], t)], axis=-1)


# kv_b's key columns per head, W_UK (r_kv, h, d_nope), and their bias: the absorbed form below
W_uk = W_kv_b.reshape(r_kv, h, d_nope + d_v)[..., :d_nope]
b_uk = b_kv_b.reshape(h, d_nope + d_v)[:, :d_nope]  # (h, d_nope)

mla_decoded = None  # (B, T, d_model): the output, one position at a time
mla_decode_steps = []  # per position: the cache (c_KV, k_rot) after the append, the scores, the output row
raw_scores, absorbed_scores = [], []  # q . k from the projected keys, and from the latents (W_UK absorbed)
cross = kv_tokens is not tokens
if cross or causal:
    mla_decoded = np.zeros((B, T, d_model))
    c_cache = np.zeros((B, 0, r_kv))  # (B, L, r_kv): r_kv + d_rope numbers a token, L grows by one per position
    k_rot_cache = np.zeros((B, 1, 0, d_rope))  # (B, 1, L, d_rope)
    cached = []  # the absolute position of each cached row, oldest first
    if cross:  # a fixed cache: the latents and RoPE keys of every key/value token, computed once
        c_cache, k_rot_cache = latent_cache_rows(KV_IN, 0)
        cached = list(range(T_k))
    for t in range(T):
        x_t = X_IN[:, t : t + 1]  # the new token only, (B, 1, d_model)
        q_t = latent_query(x_t, t)  # (B, h, 1, d_nope + d_rope)
        if not cross:  # append the new token's latent and RoPE key (no head's key or value is cached)
            c_t, k_rot_t = latent_cache_rows(x_t, t)
            c_cache = np.concatenate([c_cache, c_t], axis=1)
            k_rot_cache = np.concatenate([k_rot_cache, k_rot_t], axis=2)
            cached.append(t)
            # a rolling buffer: the row that left the window leaves, unless it is a kept first key
            stay = [p for p in cached if window is None or p > t - window or p < keep_first]
            if len(stay) < len(cached):
                rows = [cached.index(p) for p in stay]
                c_cache, k_rot_cache, cached = c_cache[:, rows], k_rot_cache[:, :, rows], stay
        L = len(cached)
        # every head's key and value, projected up again from the cached latents (kv_b)
        kv_up = (c_cache @ W_kv_b + b_kv_b).reshape(B, L, h, d_nope + d_v).transpose(0, 2, 1, 3)
        k_t = np.concatenate([kv_up[..., :d_nope], np.broadcast_to(k_rot_cache, (B, h, L, d_rope))], axis=-1)
        v_t = kv_up[..., d_nope:]  # (B, h, L, d_v)
        raw = q_t @ k_t.transpose(0, 1, 3, 2)  # (B, h, 1, L)
        # the same scores with W_UK absorbed into the query: q_nope W_UK^T is r_kv wide and reads the
        # cached latents themselves (plus q_nope . b_uk), and q_rot reads the cached RoPE keys
        q_latent = np.einsum("bhqn,rhn->bhqr", q_t[..., :d_nope], W_uk)  # (B, h, 1, r_kv)
        absorbed = (q_latent @ c_cache[:, None].transpose(0, 1, 3, 2)
                    + (q_t[..., :d_nope] * b_uk[None, :, None]).sum(axis=-1, keepdims=True)
                    + q_t[..., d_nope:] @ k_rot_cache.transpose(0, 1, 3, 2))
        raw_scores.append(raw.ravel())
        absorbed_scores.append(absorbed.ravel())
        pos = np.array(cached)
        s = scale_scores(raw)
        if use_alibi:
            s = s + np.array(alibi_slopes(h))[None, :, None, None] * alibi_distance(pos - t)[None, None, None, :]
        s = np.where(mask[:, None, t : t + 1, pos], fill, s)  # the mask at the cached positions
        with np.errstate(invalid="ignore"):
            both = with_sinks(s)  # with attention sinks, each head's logit is one more column
            e = np.exp(both - both.max(axis=-1, keepdims=True))
            w = (e / e.sum(axis=-1, keepdims=True))[..., : s.shape[-1]]  # (B, h, 1, L), the sink's column dropped
            ctx = w @ v_t  # (B, h, 1, d_v)
            mla_decoded[:, t] = (ctx.transpose(0, 2, 1, 3).reshape(B, 1, h * d_v) @ W_o + b_o)[:, 0]
        mla_decode_steps.append({"c_kv": c_cache, "k_rot": k_rot_cache, "scores": s, "output": mla_decoded[:, t]})
    print(f"decoded {T} positions; the cache holds {L} tokens of r_kv + d_rope = {r_kv + d_rope} numbers each, "
          f"where every head's key and value would take h * (d_nope + d_rope + d_v) = {h * (d_nope + d_rope + d_v)}")
else:
    print("decoding skipped: self-attention without a causal mask cannot be generated token by token")
