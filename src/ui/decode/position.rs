//! What every part of the decode view reads for the shown position: [`Ctx`] (the decoding,
//! the position, the sentence, the query head and the full run) and [`At`] (the sizes and
//! indices of that position, kept in range). Below the view's parts, so none of them
//! imports another.

use std::sync::Arc;

use leptos::prelude::*;

use crate::engine::{DecodeStep, Decoded, Trace};
/// What every part of a position reads: the decoding, the position, the sentence and the
/// query head, and the full run.
#[derive(Clone, Copy)]
pub(super) struct Ctx {
    pub(super) decoded: Memo<Result<Arc<Decoded>, String>>,
    pub(super) t: RwSignal<usize>,
    pub(super) batch: Signal<usize>,
    pub(super) head: RwSignal<usize>,
    pub(super) full: Signal<Option<Arc<Trace>>>,
}

/// The sizes of a position: B, h, h_kv, L, d_k, and the sentence, query head and K/V head
/// shown (kept in range).
#[derive(Clone, Copy)]
pub(super) struct At {
    pub(super) batch_len: usize,
    pub(super) h_kv: usize,
    pub(super) len: usize,
    pub(super) d_k: usize,
    /// A value head's width (`d_k` but under MLA).
    pub(super) d_v: usize,
    /// Under MLA, what a token caches: `(r_kv, d_rope)`.
    pub(super) latent: Option<(usize, usize)>,
    pub(super) b: usize,
    pub(super) head: usize,
    pub(super) kv_head: usize,
}

impl At {
    /// The width of the `which` table's rows: K (`d_k`) or V (`d_v`), or under MLA the
    /// latent `c_KV` (`r_kv`) or the RoPE key (`d_rope`).
    pub(super) fn width(&self, which: char) -> usize {
        match (self.latent, which) {
            (Some((r_kv, _)), 'K') => r_kv,
            (Some((_, d_rope)), _) => d_rope,
            (None, 'K') => self.d_k,
            (None, _) => self.d_v,
        }
    }

    /// The head of the cache tables: the shown K/V head, or under MLA the one shared row.
    pub(super) fn cache_head(&self) -> usize {
        if self.latent.is_some() {
            0
        } else {
            self.kv_head
        }
    }

    pub(super) fn of(p: &DecodeStep, b: usize, head: usize) -> Self {
        let (k, q) = (p.k_cache.shape(), p.q.shape());
        let h = q.get(1).copied().unwrap_or(1).max(1);
        let h_kv = k.get(1).copied().unwrap_or(1).max(1);
        let batch_len = k.first().copied().unwrap_or(0);
        let head = head.min(h - 1);
        At {
            batch_len,
            h_kv,
            len: k.get(2).copied().unwrap_or(0),
            d_k: k.get(3).copied().unwrap_or(0),
            d_v: p.v_cache.shape().get(3).copied().unwrap_or(0),
            latent: p.latent.as_ref().map(|l| (l.c_kv.dim().3, l.k_rope.dim().3)),
            b: b.min(batch_len.saturating_sub(1)),
            head,
            kv_head: head / (h / h_kv).max(1),
        }
    }
}

impl Ctx {
    /// `f` of the current position (tracked: reruns when t, the sentence, the head, the
    /// decoding or the full run change).
    pub(super) fn with<R>(
        &self,
        f: impl FnOnce(&Arc<Decoded>, &DecodeStep, Option<&Trace>, At) -> R,
    ) -> Option<R> {
        let (b, head, t) = (self.batch.get(), self.head.get(), self.t.get());
        let full = self.full.get();
        self.decoded.with(|d| {
            let d = d.as_ref().ok()?;
            let p = d.positions.get(t.min(d.positions.len().saturating_sub(1)))?;
            Some(f(d, p, full.as_deref(), At::of(p, b, head)))
        })
    }

    /// `f` of the whole decoding, with the sizes and indices of its first position (L
    /// is the first position's): tracked like [`Ctx::with`] but not on t, so it runs
    /// once per decoding, sentence and head, not at every step.
    pub(super) fn with_decoding<R>(
        &self,
        f: impl FnOnce(&Arc<Decoded>, Option<&Trace>, At) -> R,
    ) -> Option<R> {
        let (b, head) = (self.batch.get(), self.head.get());
        let full = self.full.get();
        self.decoded.with(|d| {
            let d = d.as_ref().ok()?;
            let p = d.positions.first()?;
            Some(f(d, full.as_deref(), At::of(p, b, head)))
        })
    }
}
