def project_heads(rows, W, b, heads):
    """(B, n, d_model) rows -> (B, heads, n, d_k)."""
    y = rows @ W + b
    return y.reshape(B, y.shape[1], heads, d_k).transpose(0, 2, 1, 3)


decoded = None  # (B, T, d_model): the output, one position at a time
cross = kv_tokens is not tokens
if cross or causal:
    decoded = np.zeros((B, T, d_model))
    k_cache = np.zeros((B, h_kv, 0, d_k))  # (B, h_kv, L, d_k), L grows by one per position
    v_cache = np.zeros((B, h_kv, 0, d_k))
    cached = []  # the absolute position of each cached row, oldest first
    if cross:  # a fixed cache: every key and value of the key/value sentences, computed once
        k_cache = project_heads(KV_IN, W_k, b_k, h_kv)
        v_cache = project_heads(KV_IN, W_v, b_v, h_kv)
        k_cache = norm_heads(k_cache, k_norm_weight) if qk_norm_eps is not None else k_cache
        k_cache = rope(k_cache) if rope_style is not None else k_cache
        cached = list(range(T_k))
    for t in range(T):
        x_t = X_IN[:, t : t + 1]  # the new token only, (B, 1, d_model)
        q_t = project_heads(x_t, W_q, b_q, h)  # (B, h, 1, d_k)
        q_t = norm_heads(q_t, q_norm_weight) if qk_norm_eps is not None else q_t
        q_t = rope(q_t, start=t) if rope_style is not None else q_t
        if not cross:  # append the new key and value
            k_t = project_heads(x_t, W_k, b_k, h_kv)
            k_t = norm_heads(k_t, k_norm_weight) if qk_norm_eps is not None else k_t
            k_t = rope(k_t, start=t) if rope_style is not None else k_t
            k_cache = np.concatenate([k_cache, k_t], axis=2)
            v_cache = np.concatenate([v_cache, project_heads(x_t, W_v, b_v, h_kv)], axis=2)
            cached.append(t)
            # a rolling buffer: the row that left the window leaves, unless it is a kept first key
            stay = [p for p in cached if window is None or p > t - window or p < keep_first]
            if len(stay) < len(cached):
                rows = [cached.index(p) for p in stay]
                k_cache, v_cache, cached = k_cache[:, :, rows], v_cache[:, :, rows], stay
        pos = np.array(cached)
        s = scale_scores(q_t @ np.repeat(k_cache, h // h_kv, axis=1).transpose(0, 1, 3, 2))  # (B, h, 1, L)
        if use_alibi:
            s = s + np.array(alibi_slopes(h))[None, :, None, None] * alibi_distance(pos - t)[None, None, None, :]
        s = np.where(mask[:, None, t : t + 1, pos], fill, s)  # the mask at the cached positions
        with np.errstate(invalid="ignore"):
            both = with_sinks(s)  # with attention sinks, each head's logit is one more column
            e = np.exp(both - both.max(axis=-1, keepdims=True))
            w = (e / e.sum(axis=-1, keepdims=True))[..., : s.shape[-1]]  # (B, h, 1, L), the sink's column dropped
            ctx = w @ np.repeat(v_cache, h // h_kv, axis=1)  # (B, h, 1, d_k)
            decoded[:, t] = (ctx.transpose(0, 2, 1, 3).reshape(B, 1, h * d_k) @ W_o + b_o)[:, 0]
else:
    print("decoding skipped: self-attention without a causal mask cannot be generated token by token")
