//! Numeric needs and policy caps folded per field (context window, prompt cost, p95 latency)
//! into closed intervals, shared by the per-call query and the compiled capability and policy.

use super::wire::{ComparisonOp, Requirement, TenantPolicy, UpperBoundOp};

/// Every numeric check on one field, folded into one closed interval.
///
/// Strict bounds become closed ones on the adjacent double (`x > v` iff `x >= next_up(v)` for
/// non-NaN `x`), so a row costs two comparisons per checked field and no dispatch. A NaN field
/// (a model without p95) fails any checked interval, as upstream rejects it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Interval {
    on: bool,
    lo: f64,
    hi: f64,
}

impl Interval {
    const ANY: Interval = Interval {
        on: false,
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
    };

    #[inline]
    pub(crate) fn admits(&self, v: f64) -> bool {
        !self.on | ((v >= self.lo) & (v <= self.hi))
    }

    /// Narrows by `x <op> v`; false when nothing can pass any more.
    fn narrow(&mut self, op: ComparisonOp, v: f64) -> bool {
        self.on = true;
        if v.is_nan() {
            return false;
        }
        match op {
            ComparisonOp::Ge => self.lo = self.lo.max(v),
            ComparisonOp::Gt if v == f64::INFINITY => return false,
            ComparisonOp::Gt => self.lo = self.lo.max(v.next_up()),
            ComparisonOp::Le => self.hi = self.hi.min(v),
            ComparisonOp::Lt if v == f64::NEG_INFINITY => return false,
            ComparisonOp::Lt => self.hi = self.hi.min(v.next_down()),
            ComparisonOp::Eq => {
                self.lo = self.lo.max(v);
                self.hi = self.hi.min(v);
            }
        }
        true
    }

    /// Both intervals at once: narrowing is a max of lower and a min of upper bounds, so
    /// folding two groups of checks apart and intersecting equals folding them all in order.
    fn and(self, other: Interval) -> Interval {
        Interval {
            on: self.on | other.on,
            lo: self.lo.max(other.lo),
            hi: self.hi.min(other.hi),
        }
    }
}

/// The numeric part of a query: one interval per field, and whether some check can never
/// pass (a NaN bound, `> +inf`, `< -inf`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bounds {
    /// Context window, prompt cost, p95 latency.
    pub fields: [Interval; 3],
    pub impossible: bool,
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds {
            fields: [Interval::ANY; 3],
            impossible: false,
        }
    }
}

impl Bounds {
    fn narrow(&mut self, field: usize, op: ComparisonOp, v: f64) {
        if let Some(slot) = self.fields.get_mut(field)
            && !slot.narrow(op, v)
        {
            self.impossible = true;
        }
    }

    /// Folds a numeric need in; false (nothing folded) for a need on something else.
    pub fn need(&mut self, need: &Requirement) -> bool {
        match need {
            Requirement::ContextWindow(b) => self.narrow(0, b.op, b.value),
            Requirement::CostPerCall(b) => self.narrow(1, b.op, b.usd),
            Requirement::P95LatencyMs(b) => {
                let op = match b.op {
                    UpperBoundOp::Le => ComparisonOp::Le,
                    UpperBoundOp::Lt => ComparisonOp::Lt,
                };
                self.narrow(2, op, b.value);
            }
            _ => return false,
        }
        true
    }

    /// Folds a tenant policy's caps in.
    pub fn policy(&mut self, policy: &TenantPolicy) {
        if let Some(cap) = policy.max_cost_per_call_usd {
            self.narrow(1, ComparisonOp::Le, cap);
        }
        if let Some(cap) = policy.max_tokens_per_call {
            // A minimum despite the name (spec §6.1), as upstream.
            self.narrow(0, ComparisonOp::Ge, cap);
        }
    }

    /// Both sets of checks.
    pub fn and(self, other: Bounds) -> Bounds {
        let [a, b, c] = self.fields;
        let [x, y, z] = other.fields;
        Bounds {
            fields: [a.and(x), b.and(y), c.and(z)],
            impossible: self.impossible | other.impossible,
        }
    }
}
