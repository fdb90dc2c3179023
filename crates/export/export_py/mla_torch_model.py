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

    class MultiHeadLatentAttention(nn.Module):
        """DeepseekV3Attention's forward (transformers' modeling_deepseek_v3.py) with DeepSeek's module
        names and the page's weights: the latent c_KV and the shared RoPE key from kv_a_proj_with_mqa,
        every head's k_nope and value projected up from the latent by kv_b_proj, RoPE on the last
        d_rope numbers only. Every step of the page is kept in steps."""

        def __init__(self):
            super().__init__()
            TORCH_Q_INIT
            self.kv_a_proj_with_mqa = linear(W_kv_a, b_kv_a)  # d_model -> r_kv + d_rope
            self.kv_a_layernorm = rms_norm_layer(kv_a_norm_weight)
            self.kv_b_proj = linear(W_kv_b, b_kv_b)  # r_kv -> h * (d_nope + d_v)
            self.o_proj = linear(W_o, b_o)  # h * d_v -> d_model

        def forward(self, x, x_kv, mask, steps):
            B, T, _ = x.shape
            T_k = x_kv.shape[1]
            TORCH_Q_FORWARD
            kv_a = self.kv_a_proj_with_mqa(x_kv)  # (B, T_k, r_kv + d_rope)
            c_kv, k_pe = torch.split(kv_a, [r_kv, d_rope], dim=-1)
            c_kv = self.kv_a_layernorm(c_kv)  # (B, T_k, r_kv): what a decoder caches
            k_pe = k_pe.view(B, 1, T_k, d_rope)  # one RoPE key, shared by every head
            kv_b = self.kv_b_proj(c_kv)  # (B, T_k, h * (d_nope + d_v))
            steps.update(q=q, kv_a=kv_a, c_kv=c_kv, k_pe=k_pe, kv_b=kv_b)
            q = q.view(B, T, h, d_nope + d_rope).transpose(1, 2)  # (B, h, T, d_nope + d_rope)
            k_nope, v = torch.split(kv_b.view(B, T_k, h, d_nope + d_v).transpose(1, 2), [d_nope, d_v], dim=-1)
            steps.update(q_heads=q, k_nope=k_nope, v_heads=v)
            if rope_style is not None:  # RoPE on each query head's last d_rope numbers and on the shared key
                q_nope, q_pe = torch.split(q, [d_nope, d_rope], dim=-1)
                q_rot, k_pe = torch_turn(q_pe, 0), torch_turn(k_pe, 0)
                q = torch.cat([q_nope, q_rot], dim=-1)  # (B, h, T, d_nope + d_rope)
                steps.update(q_rot=q_rot, k_rot=k_pe, q_cat=q)
            k = torch.cat([k_nope, k_pe.expand(B, h, T_k, d_rope)], dim=-1)  # every head's key ends with the shared one
            steps["k_cat"] = k
            context = attend(q, k, v, mask, steps, (q, k, v))  # (B, h, T, d_v)
            concat = context.transpose(1, 2).contiguous().view(B, T, h * d_v)
            steps["concat"] = concat
            output = self.o_proj(concat)
            steps["output"] = output
            return output
