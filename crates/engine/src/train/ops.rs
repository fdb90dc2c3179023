//! Each stage of the model as a pair: its forward, and beside it its backward, written
//! out by hand. Every buffer is a flat row-major slice the caller owns, so a training
//! step allocates nothing. A backward *adds* into its gradient buffers (`+=`), which is
//! how the chain rule sums the paths through a shared input; the caller zeroes them once.
//!
//! Every operation is IEEE addition, multiplication, division or square root (Rust never
//! fuses a multiply-add), and `exp` and `log` are the `libm` crate's, one pure-Rust
//! implementation: a seeded run gives the same numbers to the bit in the browser's wasm
//! and natively, so a run recorded by the native build is the run the Learn view trains
//! (`e2e/bench/wasm-engine/same.mjs` compares them).
//!
//! Heads live side by side in the columns of a `(T, d_model)` buffer: head `hh` is
//! columns `hh·d_k .. (hh+1)·d_k`, as after `merge_heads` (`crate::attention`).

use crate::lanes::{Lanes, Pair};

/// Row `i` of a matrix with `n` columns (empty if out of range).
#[inline]
pub fn row(a: &[f64], i: usize, n: usize) -> &[f64] {
    a.get(i * n..(i + 1) * n).unwrap_or(&[])
}

/// Head `hh`'s `d_k` columns of one token's row.
#[inline]
pub fn head(row: &[f64], hh: usize, d_k: usize) -> &[f64] {
    row.get(hh * d_k..(hh + 1) * d_k).unwrap_or(&[])
}

/// Head `hh`'s `d_k` columns of one token's row, to write.
#[inline]
pub fn head_mut(row: &mut [f64], hh: usize, d_k: usize) -> &mut [f64] {
    row.get_mut(hh * d_k..(hh + 1) * d_k).unwrap_or(&mut [])
}

/// `Σ a_i·b_i`, in four interleaved partial sums (so the products pipeline), added
/// pairwise at the end: `(acc0 + acc1) + (acc2 + acc3) + tail`, where `acc_c` sums the
/// products at `i ≡ c (mod 4)` in order and `tail` the last `n mod 4`. The four sums are
/// two [`Pair`]s (two-lane instructions in the browser too, see [`crate::lanes`]); the
/// release profile's `opt-level = "z"` does not inline iterator adapters, hence the plain
/// loops (BENCHMARKS.md).
#[inline(always)]
#[allow(clippy::indexing_slicing)] // j < the tails' length
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let ((a4, a_tail), (b4, b_tail)) = (a[..n].as_chunks::<4>(), b[..n].as_chunks::<4>());
    let (mut lo, mut hi) = (Pair::ZERO, Pair::ZERO);
    for (x, y) in a4.iter().zip(b4) {
        let ((x0, x1), (y0, y1)) = (Pair::load4(x), Pair::load4(y));
        lo = lo.mul_add(x0, y0);
        hi = hi.mul_add(x1, y1);
    }
    let mut tail = 0.0;
    for j in 0..a_tail.len().min(b_tail.len()) {
        tail += a_tail[j] * b_tail[j];
    }
    let ([acc0, acc1], [acc2, acc3]) = (lo.lanes(), hi.lanes());
    (acc0 + acc1) + (acc2 + acc3) + tail
}

/// `y += alpha·x` (over the shorter length), four numbers at a time as two [`Pair`]s.
#[inline(always)]
#[allow(clippy::indexing_slicing)] // every index is below the tails' length
pub fn axpy(y: &mut [f64], alpha: f64, x: &[f64]) {
    let n = y.len().min(x.len());
    let ((y4, y_tail), (x4, x_tail)) = (y[..n].as_chunks_mut::<4>(), x[..n].as_chunks::<4>());
    let s = Pair::splat(alpha);
    for (y, x) in y4.iter_mut().zip(x4) {
        let ((y0, y1), (x0, x1)) = (Pair::load4(y), Pair::load4(x));
        Pair::store4(y0.mul_add(s, x0), y1.mul_add(s, x1), y);
    }
    for i in 0..y_tail.len().min(x_tail.len()) {
        y_tail[i] += alpha * x_tail[i];
    }
}

/// Columns of `out` a product keeps in registers at a time (four two-lane registers).
const TILE: usize = 8;

/// A tile of [`TILE`] columns as two groups of four.
type Tile = [[f64; 4]; 2];

/// One tile of a product's partial sums, in four [`Pair`]s.
type Acc = [Pair; 4];

/// `row[j0..j0 + TILE]` as a tile, if it is that long.
#[inline(always)]
fn tile(row: &[f64], j0: usize) -> Option<&Tile> {
    row.get(j0..j0 + TILE).and_then(|t| t.as_chunks::<4>().0.try_into().ok())
}

/// `row[j0..j0 + TILE]` as a tile to write, if it is that long.
#[inline(always)]
fn tile_mut(row: &mut [f64], j0: usize) -> Option<&mut Tile> {
    row.get_mut(j0..j0 + TILE).and_then(|t| t.as_chunks_mut::<4>().0.try_into().ok())
}

#[inline(always)]
fn tile_load([lo, hi]: &Tile) -> Acc {
    let ((a0, a1), (a2, a3)) = (Pair::load4(lo), Pair::load4(hi));
    [a0, a1, a2, a3]
}

#[inline(always)]
fn tile_store([a0, a1, a2, a3]: Acc, [lo, hi]: &mut Tile) {
    Pair::store4(a0, a1, lo);
    Pair::store4(a2, a3, hi);
}

/// `acc[c] += s·b[c]` for one tile of columns: one row of a product's partial sums.
#[inline(always)]
fn tile_axpy(acc: &mut Acc, s: f64, [lo, hi]: &Tile) {
    let s = Pair::splat(s);
    let ((b0, b1), (b2, b3)) = (Pair::load4(lo), Pair::load4(hi));
    *acc = [acc[0].mul_add(s, b0), acc[1].mul_add(s, b1), acc[2].mul_add(s, b2), acc[3].mul_add(s, b3)];
}

/// `out (m×n) += a (m×k) @ b (k×n)`. Each `out[i][j]` is `out[i][j] + a[i][0]·b[0][j] +
/// a[i][1]·b[1][j] + …`, added in the order k = 0, 1, …; a tile of [`TILE`] columns is
/// held in registers over the whole sum instead of read and written back for each k.
pub fn mm(a: &[f64], b: &[f64], out: &mut [f64], k: usize, n: usize) {
    let (k, n) = (k.max(1), n.max(1));
    for (a_row, out_row) in a.chunks_exact(k).zip(out.chunks_exact_mut(n)) {
        let mut j0 = 0;
        while j0 + TILE <= n {
            let Some(slot) = tile_mut(out_row, j0) else { break };
            let mut acc = tile_load(slot);
            for (&a_ik, b_row) in a_row.iter().zip(b.chunks_exact(n)) {
                if let Some(b_tile) = tile(b_row, j0) {
                    tile_axpy(&mut acc, a_ik, b_tile);
                }
            }
            tile_store(acc, slot);
            j0 += TILE;
        }
        // the columns past the last whole tile
        let rest = out_row.get_mut(j0..).unwrap_or(&mut []);
        for (&a_ik, b_row) in a_row.iter().zip(b.chunks_exact(n)) {
            axpy(rest, a_ik, b_row.get(j0..).unwrap_or(&[]));
        }
    }
}

/// `out (k×n) += a (m×k)ᵀ @ b (m×n)`: a weight's gradient from its input and the
/// output's gradient. Each `out[r][j]` adds `a[i][r]·b[i][j]` in the order i = 0, 1, …,
/// a tile of [`TILE`] columns held in registers over all the rows.
pub fn mm_tn(a: &[f64], b: &[f64], out: &mut [f64], k: usize, n: usize) {
    let (k, n) = (k.max(1), n.max(1));
    for (r, out_row) in out.chunks_exact_mut(n).enumerate() {
        let mut j0 = 0;
        while j0 + TILE <= n {
            let Some(slot) = tile_mut(out_row, j0) else { break };
            let mut acc = tile_load(slot);
            for (a_row, b_row) in a.chunks_exact(k).zip(b.chunks_exact(n)) {
                if let (Some(&a_ir), Some(b_tile)) = (a_row.get(r), tile(b_row, j0)) {
                    tile_axpy(&mut acc, a_ir, b_tile);
                }
            }
            tile_store(acc, slot);
            j0 += TILE;
        }
        let rest = out_row.get_mut(j0..).unwrap_or(&mut []);
        for (a_row, b_row) in a.chunks_exact(k).zip(b.chunks_exact(n)) {
            if let Some(&a_ir) = a_row.get(r) {
                axpy(rest, a_ir, b_row.get(j0..).unwrap_or(&[]));
            }
        }
    }
}

/// `out (m×n) += a (m×k) @ b (n×k)ᵀ`: an input's gradient through a weight.
pub fn mm_nt(a: &[f64], b: &[f64], out: &mut [f64], k: usize, n: usize) {
    for (a_row, out_row) in a.chunks_exact(k.max(1)).zip(out.chunks_exact_mut(n.max(1))) {
        for (o, b_row) in out_row.iter_mut().zip(b.chunks_exact(k.max(1))) {
            *o += dot(a_row, b_row);
        }
    }
}

/// Embedding: `x[b, t] = E[tokens[b, t]] + pos[t]` (`pos` empty for no positions).
///
/// Shapes: e `(vocab, d)`, pos `(T, d)` or empty, tokens `(B·T)`, x `(B·T, d)`.
pub fn embed(e: &[f64], pos: &[f64], tokens: &[usize], t: usize, d: usize, x: &mut [f64]) {
    for (i, (x_row, &tok)) in x.chunks_exact_mut(d.max(1)).zip(tokens).enumerate() {
        x_row.copy_from_slice(row(e, tok, d));
        if !pos.is_empty() {
            axpy(x_row, 1.0, row(pos, i % t.max(1), d));
        }
    }
}

/// Backward of [`embed`]: `dE[tok] += dx[b, t]`, and `dP[t] += dx[b, t]` when `dp` is
/// given (learned positions).
pub fn embed_backward(
    dx: &[f64],
    tokens: &[usize],
    t: usize,
    d: usize,
    de: &mut [f64],
    mut dp: Option<&mut [f64]>,
) {
    for (i, (dx_row, &tok)) in dx.chunks_exact(d.max(1)).zip(tokens).enumerate() {
        if let Some(de_row) = de.get_mut(tok * d..(tok + 1) * d) {
            axpy(de_row, 1.0, dx_row);
        }
        let pos = i % t.max(1);
        if let Some(dp_row) = dp.as_deref_mut().and_then(|dp| dp.get_mut(pos * d..(pos + 1) * d)) {
            axpy(dp_row, 1.0, dx_row);
        }
    }
}

/// `out = x @ w + b` for every row of x: x `(n, d_in)`, w `(d_in, d_out)`, b `(d_out)`
/// (empty for no bias).
pub fn linear(x: &[f64], w: &[f64], b: &[f64], out: &mut [f64], d_in: usize, d_out: usize) {
    for out_row in out.chunks_exact_mut(d_out.max(1)) {
        if b.is_empty() {
            out_row.fill(0.0);
        } else {
            out_row.copy_from_slice(b);
        }
    }
    mm(x, w, out, d_in, d_out);
}

/// Backward of [`linear`]: `dW += xᵀ·dout`, `db += Σ_rows dout` (when `db` is not
/// empty), and `dx += dout·Wᵀ` when `dx` is given.
pub fn linear_backward(
    x: &[f64],
    w: &[f64],
    dout: &[f64],
    dims: (usize, usize),
    dw: &mut [f64],
    db: &mut [f64],
    dx: Option<&mut [f64]>,
) {
    let (d_in, d_out) = dims;
    mm_tn(x, dout, dw, d_in, d_out);
    if !db.is_empty() {
        for dout_row in dout.chunks_exact(d_out.max(1)) {
            axpy(db, 1.0, dout_row);
        }
    }
    if let Some(dx) = dx {
        mm_nt(dout, w, dx, d_out, d_in);
    }
}

/// The sizes of one sequence's attention: T tokens, width d, heads of d_k.
#[derive(Debug, Clone, Copy)]
pub struct HeadDims {
    /// Tokens.
    pub t: usize,
    /// Residual width.
    pub d: usize,
    /// Head width.
    pub d_k: usize,
}

impl HeadDims {
    fn sqrt_dk(self) -> f64 {
        (self.d_k as f64).sqrt()
    }
}

/// Head `hh`'s scaled, masked scores for one sequence: `s[i, j] = q_i·k_j / √d_k`, or
/// `−∞` where `blocked[i, j]` (the engine's `masked_fill` with the `-inf` fill).
///
/// Shapes: q, k `(T, d)`, blocked and s `(T, T)`.
pub fn scores(q: &[f64], k: &[f64], blocked: &[bool], hh: usize, dims: HeadDims, s: &mut [f64]) {
    let (t, d, d_k, sqrt_dk) = (dims.t.max(1), dims.d.max(1), dims.d_k, dims.sqrt_dk());
    for ((q_row, s_row), blocked_row) in
        q.chunks_exact(d).zip(s.chunks_exact_mut(t)).zip(blocked.chunks_exact(t))
    {
        let q_h = head(q_row, hh, d_k);
        for ((s_ij, k_row), &blocked) in s_row.iter_mut().zip(k.chunks_exact(d)).zip(blocked_row) {
            *s_ij = if blocked { f64::NEG_INFINITY } else { dot(q_h, head(k_row, hh, d_k)) / sqrt_dk };
        }
    }
}

/// Backward of [`scores`]: `dq_i += Σ_j ds[i, j]·k_j / √d_k` and
/// `dk_j += Σ_i ds[i, j]·q_i / √d_k` in head `hh`'s columns. A blocked score is a
/// constant, so it passes no gradient (its `ds` is 0 anyway: see [`softmax_backward`]).
pub fn scores_backward(
    ds: &[f64],
    q: &[f64],
    k: &[f64],
    hh: usize,
    dims: HeadDims,
    dq: &mut [f64],
    dk: &mut [f64],
) {
    let (t, d, d_k, sqrt_dk) = (dims.t.max(1), dims.d.max(1), dims.d_k, dims.sqrt_dk());
    for ((ds_row, q_row), dq_row) in ds.chunks_exact(t).zip(q.chunks_exact(d)).zip(dq.chunks_exact_mut(d)) {
        let (q_h, dq_h) = (head(q_row, hh, d_k), head_mut(dq_row, hh, d_k));
        for ((&ds_ij, k_row), dk_row) in ds_row.iter().zip(k.chunks_exact(d)).zip(dk.chunks_exact_mut(d)) {
            if ds_ij != 0.0 {
                axpy(dq_h, ds_ij / sqrt_dk, head(k_row, hh, d_k));
                axpy(head_mut(dk_row, hh, d_k), ds_ij / sqrt_dk, q_h);
            }
        }
    }
}

/// Softmax over each row of scores, blocked (`−∞`) entries getting exactly 0.
///
/// **A fully blocked row** (every key `−∞`; with causal or window masks the diagonal is
/// always allowed, so it needs a hand-made mask) gets all-zero weights: the query attends
/// to nothing, its context is 0, and no gradient flows through it. PyTorch's softmax would
/// give NaN there (0/0), the engine's trace too; the trainer chooses zeros so a step never
/// turns the parameters into NaN.
pub fn softmax(s: &[f64], p: &mut [f64], t: usize) {
    for (s_row, p_row) in s.chunks_exact(t.max(1)).zip(p.chunks_exact_mut(t.max(1))) {
        let max = s_row.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x));
        if max == f64::NEG_INFINITY {
            p_row.fill(0.0);
            continue;
        }
        // a blocked key's exp(−∞) is exactly 0: written without calling exp (most of a
        // causal map's keys are blocked, and exp is a tenth of a training step)
        for (p, &s) in p_row.iter_mut().zip(s_row) {
            *p = if s == f64::NEG_INFINITY { 0.0 } else { libm::exp(s - max) };
        }
        let sum: f64 = p_row.iter().sum();
        for p in p_row.iter_mut() {
            *p /= sum;
        }
    }
}

/// Backward of [`softmax`], the Jacobian-vector product row by row:
/// `ds = p ∘ (dp − Σ_j dp_j·p_j)`. Where `p` is 0 (a blocked key, or a fully blocked row)
/// `ds` is 0.
pub fn softmax_backward(p: &[f64], dp: &[f64], ds: &mut [f64], t: usize) {
    for ((p_row, dp_row), ds_row) in
        p.chunks_exact(t.max(1)).zip(dp.chunks_exact(t.max(1))).zip(ds.chunks_exact_mut(t.max(1)))
    {
        let r = dot(dp_row, p_row);
        for ((ds, &p), &dp) in ds_row.iter_mut().zip(p_row).zip(dp_row) {
            *ds = p * (dp - r);
        }
    }
}

/// Head `hh`'s context `z_i = Σ_j p[i, j]·v_j`, written into its columns of z.
pub fn attend(p: &[f64], v: &[f64], hh: usize, dims: HeadDims, z: &mut [f64]) {
    let (t, d, d_k) = (dims.t.max(1), dims.d.max(1), dims.d_k);
    for (p_row, z_row) in p.chunks_exact(t).zip(z.chunks_exact_mut(d)) {
        let z_h = head_mut(z_row, hh, d_k);
        z_h.fill(0.0);
        for (&p_ij, v_row) in p_row.iter().zip(v.chunks_exact(d)) {
            axpy(z_h, p_ij, head(v_row, hh, d_k));
        }
    }
}

/// Backward of [`attend`]: `dp[i, j] = dz_i·v_j` (written) and `dv_j += Σ_i p[i, j]·dz_i`.
pub fn attend_backward(
    p: &[f64],
    v: &[f64],
    dz: &[f64],
    hh: usize,
    dims: HeadDims,
    dp: &mut [f64],
    dv: &mut [f64],
) {
    let (t, d, d_k) = (dims.t.max(1), dims.d.max(1), dims.d_k);
    for ((p_row, dz_row), dp_row) in p.chunks_exact(t).zip(dz.chunks_exact(d)).zip(dp.chunks_exact_mut(t)) {
        let dz_h = head(dz_row, hh, d_k);
        for (((dp_ij, &p_ij), v_row), dv_row) in
            dp_row.iter_mut().zip(p_row).zip(v.chunks_exact(d)).zip(dv.chunks_exact_mut(d))
        {
            *dp_ij = dot(dz_h, head(v_row, hh, d_k));
            axpy(head_mut(dv_row, hh, d_k), p_ij, dz_h);
        }
    }
}

/// Mean cross-entropy over the positions whose target is not −1: for each, `log Σ exp
/// logits − logits[target]`. Writes every row's softmax into `probs` (for the backward and
/// the predictions) and returns `(mean loss, number of targets)`; with no target at all
/// the loss is 0.
pub fn cross_entropy(logits: &[f64], targets: &[i64], vocab: usize, probs: &mut [f64]) -> (f64, usize) {
    let (mut total, mut count) = (0.0, 0);
    for ((l_row, p_row), &target) in
        logits.chunks_exact(vocab.max(1)).zip(probs.chunks_exact_mut(vocab.max(1))).zip(targets)
    {
        let max = l_row.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x));
        for (p, &l) in p_row.iter_mut().zip(l_row) {
            *p = libm::exp(l - max);
        }
        let sum: f64 = p_row.iter().sum();
        for p in p_row.iter_mut() {
            *p /= sum;
        }
        if let Some(&l_target) = usize::try_from(target).ok().and_then(|i| l_row.get(i)) {
            total += max + libm::log(sum) - l_target;
            count += 1;
        }
    }
    (if count == 0 { 0.0 } else { total / count as f64 }, count)
}

/// Backward of [`cross_entropy`]: `dlogits = (probs − onehot(target)) / count` on the
/// positions with a target, 0 elsewhere (written, not added).
pub fn cross_entropy_backward(
    probs: &[f64],
    targets: &[i64],
    vocab: usize,
    count: usize,
    dlogits: &mut [f64],
) {
    let scale = if count == 0 { 0.0 } else { 1.0 / count as f64 };
    for ((p_row, d_row), &target) in
        probs.chunks_exact(vocab.max(1)).zip(dlogits.chunks_exact_mut(vocab.max(1))).zip(targets)
    {
        match usize::try_from(target) {
            Ok(target) if target < vocab => {
                for (j, (d, &p)) in d_row.iter_mut().zip(p_row).enumerate() {
                    *d = (p - f64::from(u8::from(j == target))) * scale;
                }
            }
            _ => d_row.fill(0.0),
        }
    }
}
