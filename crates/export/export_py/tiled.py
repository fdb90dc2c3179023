block = 2  # keys (and queries) per tile
tiled_context = np.zeros((B, h, T, V_WIDTH))
for q0 in range(0, T, block):
    q1 = min(q0 + block, T)
    m = np.full((B, h, q1 - q0, 1), -np.inf)  # the running maximum of each query row
    l = np.zeros((B, h, q1 - q0, 1))  # the running sum
    o = np.zeros((B, h, q1 - q0, V_WIDTH))  # the running output
    for k0 in range(0, T_k, block):
        k1 = min(k0 + block, T_k)
        s = scale_scores(Q_FINAL[:, :, q0:q1] @ K_FINAL[:, :, k0:k1].transpose(0, 1, 3, 2))  # one tile
        if use_alibi:
            s = s + np.array(alibi_slopes(h))[None, :, None, None] * alibi_distance(np.arange(k0, k1)[None, :] - np.arange(q0, q1)[:, None])
        s = np.where(mask[:, None, q0:q1, k0:k1], fill, s)
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
        seen = np.isfinite(m_new)  # a row that has seen no finite score adds nothing yet
        m_safe = np.where(seen, m_new, 0.0)
        c = np.where(seen, np.exp(m - m_safe), 1.0)  # e^(m - m'): 0 when nothing came before
        p = np.where(seen, np.exp(s - m_safe), 0.0)
        l = c * l + p.sum(axis=-1, keepdims=True)
        o = c * o + p @ V_FINAL[:, :, k0:k1]
        m = np.where(seen, m_new, m)
    if sinks is not None:  # each head's sink: one more score, with no value, folded in last
        s = np.broadcast_to(sinks[None, :, None, None], m.shape)
        m_new = np.maximum(m, s)
        c = np.exp(m - m_new)
        l = c * l + np.exp(s - m_new)
        o = c * o
        m = m_new
    with np.errstate(invalid="ignore"):  # 0 / 0 = NaN for a row that never saw a key
        tiled_context[:, :, q0:q1] = o / l
