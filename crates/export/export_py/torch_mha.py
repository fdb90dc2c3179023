    class MultiHeadAttention(nn.Module):
        def __init__(self, d_model, n_heads, n_kv_heads, d_k):
            super().__init__()
            self.d_model, self.n_heads, self.d_k = d_model, n_heads, d_k  # d_k: d_model // n_heads or its own
            self.n_kv_heads = n_kv_heads
            self.w_q = nn.Linear(d_model, n_heads * d_k)
            self.w_k = nn.Linear(d_model, n_kv_heads * self.d_k)
            self.w_v = nn.Linear(d_model, n_kv_heads * self.d_k)
            self.w_o = nn.Linear(n_heads * d_k, d_model)

        def forward(self, x, x_kv, mask, steps):
            B, T, _ = x.shape
            T_k = x_kv.shape[1]
            h, h_kv, d_k = self.n_heads, self.n_kv_heads, self.d_k
            q = self.w_q(x)
            k = self.w_k(x_kv)
            v = self.w_v(x_kv)
            steps.update(q=q, k=k, v=v)
            q = q.view(B, T, h, d_k).transpose(1, 2)  # (B, h, T, d_k)
            k = k.view(B, T_k, h_kv, d_k).transpose(1, 2)  # (B, h_kv, T_k, d_k)
            v = v.view(B, T_k, h_kv, d_k).transpose(1, 2)
            steps.update(q_heads=q, k_heads=k, v_heads=v)
            if qk_norm_eps is not None and qk_norm_whole:  # OLMo 2: over each token's whole projection
                q = F.rms_norm(q.transpose(1, 2).reshape(B, T, h * d_k), (h * d_k,), torch.tensor(q_norm_weight),
                               qk_norm_eps).view(B, T, h, d_k).transpose(1, 2)
                k = F.rms_norm(k.transpose(1, 2).reshape(B, T_k, h_kv * d_k), (h_kv * d_k,),
                               torch.tensor(k_norm_weight), qk_norm_eps).view(B, T_k, h_kv, d_k).transpose(1, 2)
                steps.update(q_norm=q, k_norm=k)
            elif qk_norm_eps is not None:  # nn.RMSNorm(d_k, eps) with the weights, per head, before RoPE
                q = F.rms_norm(q, (d_k,), torch.tensor(q_norm_weight), qk_norm_eps)
                k = F.rms_norm(k, (d_k,), torch.tensor(k_norm_weight), qk_norm_eps)
                steps.update(q_norm=q, k_norm=k)
            if rope_style is not None:
                q, k = torch_rope(q), torch_rope(k)
                steps.update(q_rot=q, k_rot=k)
            q_sdpa, k_sdpa, v_sdpa = q, k, v  # what scaled_dot_product_attention(enable_gqa=True) reads
            if h_kv != h:
                k = k.repeat_interleave(h // h_kv, dim=1)  # (B, h, T_k, d_k)
                v = v.repeat_interleave(h // h_kv, dim=1)
                steps.update(k_rep=k, v_rep=v)
            context = attend(q, k, v, mask, steps, (q_sdpa, k_sdpa, v_sdpa))  # (B, h, T, d_k)
            concat = context.transpose(1, 2).contiguous().view(B, T, h * d_k)
            steps["concat"] = concat
            output = self.w_o(concat)
            steps["output"] = output
            return output
