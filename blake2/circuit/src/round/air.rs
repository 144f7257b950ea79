//! The round chip's AIR.
//!
//! Why a row computes exactly one BLAKE2b round:
//! - Every byte the round reads or writes is a byte. `v` on a call's first row and `m` are
//!   received from [`crate::op`], which read them from memory (bytes by the memory's
//!   invariant). Each later row's `v` is the row before's output, whose words are `a2`, `c2`
//!   (inputs of XOR lookups, which take bytes only), `d2` (an XOR lookup's output) and `b2`
//!   (range-checked below).
//! - An XOR `z = x ^ y` is a bitwise-lookup interaction `(x, y, z)`: the lookup table holds
//!   only byte triples with `z = x ^ y`.
//! - A 64-bit addition `r = x + y (+ w) mod 2^64` is three chunk equations over 24, 24 and 16
//!   bits, `Σ 256^j (x_j + y_j + w_j) + carry_in = Σ 256^j r_j + 2^(8·len) carry_out`, with
//!   `carry_out ∈ {0,1,2}` (`{0,1}` for two inputs) and `r`'s bytes range-checked by the XOR
//!   lookup they feed. Every term is under `3·2^24 < p`, so the equations hold over the
//!   integers, and they give `x + y + w = r + 2^64·carry`: `r` is the sum mod 2^64.
//! - Rotations by 32, 24 and 16 bits are byte permutations of the XOR's bytes. The rotation by
//!   63 (left by one) of `z` is `r_i = 2 z_i − 256 hi_i + hi_{i−1}`, with `hi_i` boolean and
//!   `2 z_i − 256 hi_i` range-checked as a byte: that holds only for `hi_i = z_i >> 7`.
//! - The message words are `Σ_k sigma_k · m[σ_k[·]]` with `sigma` one-hot: the schedule of the
//!   row's round index mod 10.
//!
//! Why a call's rows are exactly its `R` rounds, in order:
//! - A row after a call's last row (or the trace's first row) starts a call if it is valid
//!   (`is_first = is_valid`); a row after a valid non-last row continues its call (valid, not
//!   first, same timestamp and message, `v` = the output, `remaining − 1`, schedule `k + 1`
//!   mod 10). A first row has schedule 0; a last row has `remaining = 1`; the trace's last row
//!   is not in the middle of a call.
//! - So each call is a run of consecutive rows from a first row to a last row. The first
//!   receives `remaining = R ≤ 65535` (the instruction's register, checked by the op chip), and
//!   the count drops by one per row to 1, so the run is `R` rows: no trace is tall enough to
//!   wrap the field (`p > 2^30`), so `R = 0` cannot be proved at all.
//! - The input and output messages carry the instruction's timestamp, unique per instruction,
//!   so a call's output can only balance its own input.

use std::borrow::Borrow;

use openvm_circuit_primitives::{bitwise_op_lookup::BitwiseOperationLookupBus, ColumnsAir};
use openvm_stark_backend::{
    interaction::{InteractionBuilder, PermutationCheckBus},
    p3_air::{Air, AirBuilder, BaseAir},
    p3_field::PrimeCharacteristicRing,
    p3_matrix::Matrix,
    BaseAirWithPublicValues, PartitionedBaseAir,
};

use super::{
    columns::{MixCols, RoundCols, NUM_ROUND_COLS},
    CHUNKS,
};
use crate::reference::{MIXINGS, SIGMA};

/// Message tags on the state bus: the call's input `v` (two halves, the first with `R`), its
/// message (two halves) and its output `v'` (two halves). Halves keep each message under the
/// LogUp parameters' 127 fields.
pub mod tag {
    pub const V_LO: u32 = 0;
    pub const V_HI: u32 = 1;
    pub const M_LO: u32 = 2;
    pub const M_HI: u32 = 3;
    pub const OUT_LO: u32 = 4;
    pub const OUT_HI: u32 = 5;
}

#[derive(Clone, Copy, Debug, derive_new::new)]
pub struct Blake2bRoundAir {
    pub bitwise_lookup_bus: BitwiseOperationLookupBus,
    /// Between [`crate::op::Blake2bOpAir`] and this AIR; see [`tag`].
    pub state_bus: PermutationCheckBus,
}

impl ColumnsAir for Blake2bRoundAir {}
impl<F> BaseAirWithPublicValues<F> for Blake2bRoundAir {}
impl<F> PartitionedBaseAir<F> for Blake2bRoundAir {}
impl<F> BaseAir<F> for Blake2bRoundAir {
    fn width(&self) -> usize {
        NUM_ROUND_COLS
    }
}

type Word<E> = [E; 8];

/// The message fields of a state-bus message: tag, timestamp, then the items.
pub fn message<E: PrimeCharacteristicRing>(
    tag: u32,
    timestamp: E,
    items: impl IntoIterator<Item = E>,
) -> Vec<E> {
    [E::from_u32(tag), timestamp]
        .into_iter()
        .chain(items)
        .collect()
}

impl<AB: InteractionBuilder> Air<AB> for Blake2bRoundAir {
    fn eval(&self, builder: &mut AB) {
        let main = builder.main();
        let (local, next) = (main.row_slice(0).unwrap(), main.row_slice(1).unwrap());
        let local: &RoundCols<AB::Var> = (*local).borrow();
        let next: &RoundCols<AB::Var> = (*next).borrow();

        // ==== Flags ====
        builder.assert_bool(local.is_valid);
        builder.assert_bool(local.is_first);
        builder.assert_bool(local.is_last);
        builder.when(local.is_first).assert_one(local.is_valid);
        builder.when(local.is_last).assert_one(local.is_valid);
        let mut sigma_sum = AB::Expr::ZERO;
        for &s in &local.sigma {
            builder.assert_bool(s);
            sigma_sum += s.into();
        }
        builder.assert_eq(sigma_sum, local.is_valid);
        builder.when(local.is_first).assert_one(local.sigma[0]);
        builder.when(local.is_last).assert_one(local.remaining);
        builder
            .when_first_row()
            .assert_eq(local.is_first, local.is_valid);
        // The trace's last row ends its call (if it is in one).
        builder
            .when_last_row()
            .assert_eq(local.is_valid, local.is_last);

        // ==== The round ====
        let mut v: [Word<AB::Expr>; 16] = local.v.map(|w| w.map(Into::into));
        for (i, (words, mix)) in MIXINGS.iter().zip(&local.mix).enumerate() {
            let schedule = |pick: usize| -> Word<AB::Expr> {
                core::array::from_fn(|byte| {
                    SIGMA
                        .iter()
                        .zip(&local.sigma)
                        .fold(AB::Expr::ZERO, |acc, (s, &sel)| {
                            acc + sel * local.m[s[2 * i + pick]][byte]
                        })
                })
            };
            let [a, b, c, d] = words.map(|w| v[w].clone());
            let out = self.eval_mix(
                builder,
                local.is_valid,
                mix,
                [a, b, c, d],
                schedule(0),
                schedule(1),
            );
            for (&w, word) in words.iter().zip(out) {
                v[w] = word;
            }
        }

        // ==== Continuation ====
        // `cont` is 1 on a valid row that is not its call's last.
        let cont: AB::Expr = local.is_valid - local.is_last;
        {
            let mut when = builder.when_transition();
            let mut when = when.when(cont.clone());
            when.assert_one(next.is_valid);
            when.assert_zero(next.is_first);
            when.assert_eq(next.timestamp, local.timestamp);
            when.assert_eq(next.remaining, local.remaining - AB::Expr::ONE);
            for k in 0..10 {
                when.assert_eq(next.sigma[(k + 1) % 10], local.sigma[k]);
            }
            for ((next_m, m), (next_v, out)) in
                next.m.iter().zip(&local.m).zip(next.v.iter().zip(&v))
            {
                for byte in 0..8 {
                    when.assert_eq(next_m[byte], m[byte]);
                    when.assert_eq(next_v[byte], out[byte].clone());
                }
            }
        }
        builder
            .when_transition()
            .when(AB::Expr::ONE - cont)
            .assert_eq(next.is_first, next.is_valid);

        // ==== The call's input and output ====
        let flat = |words: &[Word<AB::Expr>]| -> Vec<AB::Expr> {
            words.iter().flat_map(|w| w.iter().cloned()).collect()
        };
        let v_in: Vec<Word<AB::Expr>> = local.v.iter().map(|w| w.map(Into::into)).collect();
        let m: Vec<Word<AB::Expr>> = local.m.iter().map(|w| w.map(Into::into)).collect();
        let ts: AB::Expr = local.timestamp.into();
        let remaining: AB::Expr = local.remaining.into();
        self.state_bus.receive(
            builder,
            message(
                tag::V_LO,
                ts.clone(),
                std::iter::once(remaining).chain(flat(&v_in[..8])),
            ),
            local.is_first,
        );
        self.state_bus.receive(
            builder,
            message(tag::V_HI, ts.clone(), flat(&v_in[8..])),
            local.is_first,
        );
        self.state_bus.receive(
            builder,
            message(tag::M_LO, ts.clone(), flat(&m[..8])),
            local.is_first,
        );
        self.state_bus.receive(
            builder,
            message(tag::M_HI, ts.clone(), flat(&m[8..])),
            local.is_first,
        );
        self.state_bus.send(
            builder,
            message(tag::OUT_LO, ts.clone(), flat(&v[..8])),
            local.is_last,
        );
        self.state_bus.send(
            builder,
            message(tag::OUT_HI, ts, flat(&v[8..])),
            local.is_last,
        );
    }
}

impl Blake2bRoundAir {
    /// One mixing's constraints and lookups; returns `(a2, b2, c2, d2)`.
    fn eval_mix<AB: InteractionBuilder>(
        &self,
        builder: &mut AB,
        is_valid: AB::Var,
        mix: &MixCols<AB::Var>,
        [a, b, c, d]: [Word<AB::Expr>; 4],
        x: Word<AB::Expr>,
        y: Word<AB::Expr>,
    ) -> [Word<AB::Expr>; 4] {
        let col = |w: &[AB::Var; 8]| -> Word<AB::Expr> { w.map(Into::into) };
        let rotate_bytes = |z: &[AB::Var; 8], k: usize| -> Word<AB::Expr> {
            core::array::from_fn(|i| z[(i + k) % 8].into())
        };

        // a1 = a + b + x
        let a1 = col(&mix.a1);
        add(builder, &[&a, &b, &x], &a1, &mix.a1_carry);
        // d1 = (d ^ a1) >>> 32
        self.xor(builder, is_valid, &d, &a1, &mix.d1_xor);
        let d1 = rotate_bytes(&mix.d1_xor, 4);
        // c1 = c + d1
        let c1 = col(&mix.c1);
        add(builder, &[&c, &d1], &c1, &mix.c1_carry);
        // b1 = (b ^ c1) >>> 24
        self.xor(builder, is_valid, &b, &c1, &mix.b1_xor);
        let b1 = rotate_bytes(&mix.b1_xor, 3);
        // a2 = a1 + b1 + y
        let a2 = col(&mix.a2);
        add(builder, &[&a1, &b1, &y], &a2, &mix.a2_carry);
        // d2 = (d1 ^ a2) >>> 16
        self.xor(builder, is_valid, &d1, &a2, &mix.d2_xor);
        let d2 = rotate_bytes(&mix.d2_xor, 2);
        // c2 = c1 + d2
        let c2 = col(&mix.c2);
        add(builder, &[&c1, &d2], &c2, &mix.c2_carry);
        // b2 = (b1 ^ c2) >>> 63
        self.xor(builder, is_valid, &b1, &c2, &mix.b2_xor);
        let shifted: Word<AB::Expr> = core::array::from_fn(|i| {
            mix.b2_xor[i] * AB::F::TWO - mix.b2_hi[i] * AB::F::from_u32(256)
        });
        for &hi in &mix.b2_hi {
            builder.assert_bool(hi);
        }
        for pair in shifted.chunks_exact(2) {
            self.bitwise_lookup_bus
                .send_range(pair[0].clone(), pair[1].clone())
                .eval(builder, is_valid);
        }
        let b2: Word<AB::Expr> =
            core::array::from_fn(|i| shifted[i].clone() + mix.b2_hi[(i + 7) % 8].into());
        [a2, b2, c2, d2]
    }

    /// `z = x ^ y`, byte by byte, through the bitwise lookup.
    fn xor<AB: InteractionBuilder>(
        &self,
        builder: &mut AB,
        is_valid: AB::Var,
        x: &Word<AB::Expr>,
        y: &Word<AB::Expr>,
        z: &[AB::Var; 8],
    ) {
        for i in 0..8 {
            self.bitwise_lookup_bus
                .send_xor(x[i].clone(), y[i].clone(), z[i])
                .eval(builder, is_valid);
        }
    }
}

/// `out = Σ inputs mod 2^64` over [`CHUNKS`], with one carry per chunk: in `{0, 1}` for two
/// inputs, `{0, 1, 2}` for three.
fn add<AB: AirBuilder>(
    builder: &mut AB,
    inputs: &[&Word<AB::Expr>],
    out: &Word<AB::Expr>,
    carries: &[AB::Var; 3],
) {
    let mut carry_in = AB::Expr::ZERO;
    for (&(start, end), carry) in CHUNKS.iter().zip(carries) {
        let carry: AB::Expr = carry.clone().into();
        let mut lhs = carry_in;
        let mut rhs = AB::Expr::ZERO;
        for j in start..end {
            let weight = AB::F::from_u32(1 << (8 * (j - start)));
            for input in inputs {
                lhs += input[j].clone() * weight.clone();
            }
            rhs += out[j].clone() * weight;
        }
        rhs += carry.clone() * AB::F::from_u32(1 << (8 * (end - start)));
        builder.assert_eq(lhs, rhs);
        if inputs.len() == 2 {
            builder.assert_bool(carry.clone());
        } else {
            builder.assert_zero(
                carry.clone() * (carry.clone() - AB::Expr::ONE) * (carry.clone() - AB::Expr::TWO),
            );
        }
        carry_in = carry;
    }
}
