//! The same in PyTorch: the helpers and the attention from the scores on of
//! `export_py/torch_model.py` (its `MASK_FILL` the scenario's fill), the module
//! (`export_py/torch_mha.py`'s `MultiHeadAttention`, or under multi-head latent attention
//! `latent::torch_model`'s), the inputs, the mask, and decoding with `causal_lower_right`.

use super::latent;
use super::Section;
use attention_engine::scenario::{Fill, Positional};
use attention_engine::trace::Trace;

/// The PyTorch part's helpers: `torch_rope`, `attend` (from the scores to the context, with
/// the fused `scaled_dot_product_attention` beside it) and `positional_encoding`. It reads
/// the names the script's earlier sections define (`rope_style`, `scale`, `sinks`…).
const TORCH_MODEL: &str = include_str!("../export_py/torch_model.py");

/// The tutorials' `MultiHeadAttention`, its steps up to the heads the scores read, then
/// `attend`.
const TORCH_MHA: &str = include_str!("../export_py/torch_mha.py");

/// Multi-head latent attention's module, the page's weights in it (`latent::torch_model`).
const MLA_MODEL: &str = "    with torch.no_grad():
        mla_attn = MultiHeadLatentAttention()
";

/// Its forward.
const MLA_FORWARD: &str = "output = mla_attn(x, x_kv, mask_t, torch_steps)";

/// One layer's module, with the page's weights copied in.
const ONE_MODEL: &str = "    with torch.no_grad():
        mha = MultiHeadAttention(d_model, h, h_kv, d_k)
        for layer, W, b in [(mha.w_q, W_q, b_q), (mha.w_k, W_k, b_k), (mha.w_v, W_v, b_v), (mha.w_o, W_o, b_o)]:
            layer.weight.copy_(torch.tensor(W.T))  # nn.Linear stores W transposed: (out, in)
            layer.bias.copy_(torch.tensor(b))
";

/// One module per layer (as `nn.ModuleList` holds them), each with its layer's weights.
const LAYERS_MODEL: &str = "    with torch.no_grad():
        mhas = nn.ModuleList(MultiHeadAttention(d_model, h, h_kv, d_k) for _ in range(n_layers))
        for mha, lw in zip(mhas, layer_weights):  # lw: (W_q, b_q, W_k, b_k, W_v, b_v, W_o, b_o)
            for layer, W, b in zip((mha.w_q, mha.w_k, mha.w_v, mha.w_o), lw[0::2], lw[1::2]):
                layer.weight.copy_(torch.tensor(W.T))  # nn.Linear stores W transposed: (out, in)
                layer.bias.copy_(torch.tensor(b))
";

/// The one layer's forward.
const ONE_FORWARD: &str = "output = mha(x, x_kv, mask_t, torch_steps)";

/// Every layer's forward on the residual stream, `x = x + attn(x)`, keeping the page's
/// layer's steps (and its fused-attention results) for the check.
const LAYERS_FORWARD: &str = "torch_resid = [x]  # the residual stream: x = x + attn(x), layer by layer
        for l, mha in enumerate(mhas):
            steps = torch_steps if l == shown else {}
            output = mha(torch_resid[-1], torch_resid[-1], mask_t, steps)
            torch_resid.append(torch_resid[-1] + output)  # the residual add
            if l == shown:
                torch_steps.update(resid_in=torch_resid[-2], resid_out=torch_resid[-1])
                shown_sdpa = dict(torch_sdpa)  # F.scaled_dot_product_attention in the page's layer
        torch_sdpa.update(shown_sdpa)
        torch_resid = torch.stack(torch_resid)  # (n_layers + 1, B, T, d_model)";

pub(super) fn torch_section(trace: &Trace, fill: Fill, table: bool) -> Section {
    let cross = trace.is_cross();
    let positions = trace.positional == Positional::Sinusoidal;
    let f = fill.pytorch();
    // The model, as a tutorial writes it: a Python file of its own (read and checked as
    // Python), whose MASK_FILL is the scenario's fill.
    let mut c = TORCH_MODEL.replace("MASK_FILL", f);
    let layered = trace.n_layers > 1;
    let mla = trace.mla.is_some();
    if mla {
        c.push_str(&latent::torch_model(trace));
        c.push_str(MLA_MODEL);
    } else {
        c.push_str(TORCH_MHA);
        c.push_str(if layered { LAYERS_MODEL } else { ONE_MODEL });
    }
    if table {
        c.push_str(
            "        vocab = list(embedding)\n        \
             emb = nn.Embedding.from_pretrained(torch.tensor([embedding[w] for w in vocab]))  # x = embedding(tokens)\n        \
             x = emb(torch.tensor([[vocab.index(t) for t in sentence] for sentence in tokens]))\n",
        );
        if cross {
            c.push_str("        x_kv = emb(torch.tensor([[vocab.index(t) for t in sentence] for sentence in kv_tokens]))\n");
        }
    } else {
        c.push_str("        x = torch.tensor(X_GIVEN)\n");
        if cross {
            c.push_str("        x_kv = torch.tensor(X_KV_GIVEN)\n");
        }
    }
    c.push_str("        torch_steps[\"x\"] = x\n");
    if cross {
        c.push_str("        torch_steps[\"x_kv\"] = x_kv\n");
    }
    if positions {
        c.push_str(
            "        pe = positional_encoding(T, d_model)\n        \
             torch_steps[\"pe\"] = pe\n        \
             x = x + pe\n        \
             torch_steps[\"x_pe\"] = x\n",
        );
        if cross {
            c.push_str(
                "        x_kv = x_kv + positional_encoding(T_k, d_model)\n        \
                 torch_steps[\"x_kv_pe\"] = x_kv\n",
            );
        }
    }
    if !cross {
        c.push_str("        x_kv = x  # self-attention\n");
    }
    let rest = String::from(
        "\n        \
         mask_t = torch.zeros(B, T, T_k, dtype=torch.bool)  # True = blocked\n        \
         if causal:\n            \
         mask_t |= torch.triu(torch.ones(T, T_k, dtype=torch.bool), diagonal=1)\n        \
         if window is not None:\n            \
         i, j = torch.arange(T).unsqueeze(1), torch.arange(T_k).unsqueeze(0)\n            \
         mask_t |= ((j + window <= i) if causal else ((i - j).abs() >= window)) & (j >= keep_first)\n        \
         if padding in (\"keys\", \"keys_and_queries\"):\n            \
         mask_t |= (torch.arange(T_k) >= torch.tensor(kv_lengths).unsqueeze(1)).unsqueeze(1)\n        \
         if padding == \"keys_and_queries\":\n            \
         mask_t |= (torch.arange(T) >= torch.tensor(lengths).unsqueeze(1)).unsqueeze(2)\n\n        \
         {FORWARD}\n",
    );
    let forward = match (mla, layered) {
        (true, _) => MLA_FORWARD,
        (false, true) => LAYERS_FORWARD,
        (false, false) => ONE_FORWARD,
    };
    c.push_str(&rest.replace("{FORWARD}", forward));
    // MLA decodes in its own section (`latent::torch_decode_section`), absorbed
    if !mla {
        c.push_str(DECODE);
    }
    c.push_str("    print(f\"PyTorch {torch.__version__}: output {tuple(output.shape)}\")\n");
    let words = if mla {
        "The pipeline again in PyTorch, as transformers' `DeepseekV3Attention` writes it: DeepSeek's \
         `nn.Linear` and `nn.RMSNorm` modules (`kv_a_proj_with_mqa`, `kv_a_layernorm`, `kv_b_proj`, `o_proj`), \
         `torch.split` into the latent and the shared RoPE key, `view` and `transpose(1, 2)`, RoPE on the \
         last d_rope numbers, then the same scores, mask and `softmax(dim=-1)` as every model; \
         `F.scaled_dot_product_attention` beside it. It runs only when PyTorch is installed."
            .to_owned()
    } else {
        format!(
            "The pipeline again, the way the tutorials write it: `nn.Linear` layers, `view` and `transpose(1, 2)`, \
             `masked_fill(mask.unsqueeze(1), {f})`, `softmax(dim=-1)`, `transpose(1, 2).contiguous().view`. \
             It runs only when PyTorch is installed."
        )
    };
    Section::new("The same in PyTorch", vec![words], c)
}

/// Decoding as PyTorch writes it, with `causal_lower_right`, when the run allows it.
const DECODE: &str = "\n        \
         # Decoding as PyTorch writes it: one query against the keys so far. The causal diagonal must\n        \
         # sit at the lower right (causal_lower_right); is_causal=True would anchor it at the top left\n        \
         # and let the one query see key 0 only. (Without a window, ALiBi or padding: the bias object\n        \
         # is the causal rule alone.)\n        \
         try:\n            \
         from torch.nn.attention.bias import causal_lower_right\n        \
         except ImportError:  # PyTorch before 2.3\n            \
         causal_lower_right = None\n        \
         plain = causal and x_kv is x and window is None and not use_alibi and padding == \"none\" and softcap is None and sinks is None\n        \
         if causal_lower_right is not None and plain:\n            \
         q_all = torch_steps.get(\"q_rot\", torch_steps[\"q_heads\"])\n            \
         k_all = torch_steps.get(\"k_rep\", torch_steps.get(\"k_rot\", torch_steps[\"k_heads\"]))\n            \
         v_all = torch_steps.get(\"v_rep\", torch_steps[\"v_heads\"])\n            \
         rows = [\n                \
         F.scaled_dot_product_attention(\n                    \
         q_all[:, :, t : t + 1], k_all[:, :, : t + 1], v_all[:, :, : t + 1], attn_mask=causal_lower_right(1, t + 1),\n                    \
         scale=scale,\n                \
         )\n                \
         for t in range(T)\n            \
         ]\n            \
         torch_sdpa[\"decoded\"] = torch.cat(rows, dim=2)  # (B, h, T, d_k): the context, row by row\n";
