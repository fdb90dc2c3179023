try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    torch = None

torch_steps = {}
torch_sdpa = {}
if torch is None:
    print("PyTorch check skipped: `import torch` failed (pip install torch to run it)")
else:
    torch.set_default_dtype(torch.float64)  # the page computes in float64

    def rotate_half(x):  # Hugging Face's, as in modeling_llama.py
        x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
        return torch.cat((-x2, x1), dim=-1)

    def torch_rope(x):  # x: (B, heads, T, d_k), turned at positions 0, 1, ...
        if rope_dims < x.shape[-1]:  # a rotary fraction: the first rope_dims turn, the rest pass (GPT-NeoX)
            return torch.cat([torch_rope(x[..., :rope_dims]), x[..., rope_dims:]], dim=-1)
        d_k = x.shape[-1]
        inv_freq = torch.from_numpy(scale_inv_freq((1.0 / (rope_base ** (torch.arange(0, d_k, 2) / d_k))).numpy()))
        freqs = torch.outer(torch.arange(x.shape[2]), inv_freq)  # (T, d_k/2)
        if rope_style == "half":  # Llama in transformers: q * cos + rotate_half(q) * sin
            emb = torch.cat((freqs, freqs), dim=-1)
            # cos and sin times YaRN's attention factor (transformers' attention_scaling; 1 otherwise)
            cos, sin = emb.cos() * rope_attention_factor, emb.sin() * rope_attention_factor
            return x * cos + rotate_half(x) * sin
        # Meta's reference Llama: pairs (2i, 2i+1) as complex numbers times e^{i pos theta},
        # of length YaRN's attention factor (1 otherwise)
        freqs_cis = torch.polar(torch.full_like(freqs, rope_attention_factor), freqs)
        x_ = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2).contiguous())
        return torch.view_as_real(x_ * freqs_cis).flatten(-2)

    def attend(q, k, v, mask, steps, sdpa_heads):
        """From the heads the scores read, queries and keys (B, h, T, d_k) and values (B, h, T_k, d_v),
        to the context (B, h, T, d_v): q @ k^T, the scale, the softcap, ALiBi, the mask, the softmax
        (with the sinks) and the weighted sum of the values, each step kept in steps. Beside it,
        PyTorch's fused F.scaled_dot_product_attention on sdpa_heads (the key/value heads before a
        grouped model repeats them), in torch_sdpa."""
        B, h, T, T_k = q.shape[0], q.shape[1], q.shape[2], k.shape[2]
        scores = q @ k.transpose(-2, -1)
        steps["scores"] = scores
        scores = scores * scale if scale is not None else scores / math.sqrt(q.shape[-1])  # 1 / sqrt(d_k)
        steps["scaled"] = scores
        if softcap is not None:
            scores = softcap * torch.tanh(scores / softcap)
            steps["capped"] = scores
        bias = torch.zeros(1, h, T, T_k)
        if use_alibi:
            slopes = torch.tensor(alibi_slopes(h)).view(1, h, 1, 1)
            bias = slopes * alibi_distance(torch.arange(T_k).view(1, T_k) - torch.arange(T).view(T, 1))
            steps["alibi"] = bias
            scores = scores + bias
            steps["biased"] = scores
        scores = scores.masked_fill(mask.unsqueeze(1), MASK_FILL)
        steps["masked"] = scores
        if sinks is not None:  # gpt-oss: the head's sink logit as one more column, dropped after the softmax
            sink = torch.tensor(sinks).view(1, h, 1, 1).expand(B, h, T, 1)
            weights = torch.cat([scores, sink], dim=-1).softmax(dim=-1)[..., :-1]
        else:
            weights = scores.softmax(dim=-1)
        steps["weights"] = weights
        context = weights @ v
        steps["context"] = context
        # The same context from PyTorch's fused function: the mask as -inf added to the
        # bias, the key/value heads shared by enable_gqa. Compared on the rows that have a
        # key to attend to (a fully blocked row is NaN or uniform by the fill, not by SDPA).
        # (SDPA has a scale but no softcap and no sinks: with either there is nothing to compare.)
        q_sdpa, k_sdpa, v_sdpa = sdpa_heads
        attn_bias = bias.masked_fill(mask.unsqueeze(1), float("-inf"))
        kwargs = {"enable_gqa": True} if k_sdpa.shape[1] != h else {}
        if scale is not None:
            kwargs["scale"] = scale
        if softcap is None and sinks is None:
            torch_sdpa["context"] = F.scaled_dot_product_attention(q_sdpa, k_sdpa, v_sdpa, attn_mask=attn_bias, **kwargs)
        torch_sdpa["live"] = ~mask.all(dim=-1)  # (B, T)
        return context

    def positional_encoding(T, d_model):  # self.pe[:, :T], the paper's formula
        position = torch.arange(T).unsqueeze(1)  # (T, 1)
        two_i = torch.arange(d_model) // 2 * 2  # 0, 0, 2, 2, 4, ...
        angle = position / 10000.0 ** (two_i / d_model)
        pe = torch.where(torch.arange(d_model) % 2 == 0, torch.sin(angle), torch.cos(angle))
        return pe.unsqueeze(0)  # (1, T, d_model)

