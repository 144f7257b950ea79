//! The order of squarings and multiplies in `base^exp`, shared by the declared fields
//! ([`super::pow`]), the rings on one chip word ([`super::mont`]) and the multi-digit one
//! ([`super::big`]).
//!
//! Left to right over the exponent's digits: a short exponent (up to 8 bytes) one bit at a time
//! (square-and-multiply), a longer one 4 bits at a time (fixed windows: a quarter of the
//! multiplies, for the 14 that build the table of `base^2..base^15`).

/// Whether the exponent takes 4-bit windows: more than 8 significant bytes. Otherwise it goes
/// a bit at a time. Both widths divide 8, so digits never straddle bytes.
pub(crate) fn windowed(exp: &[u8]) -> bool {
    significant(exp).len() > 8
}

/// `exp` without its leading zero bytes.
pub(crate) fn significant(exp: &[u8]) -> &[u8] {
    let start = exp.iter().position(|b| *b != 0).unwrap_or(exp.len());
    &exp[start..]
}

/// One step of the exponentiation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// The first non-zero digit `d`: `acc ← base^d`.
    First(usize),
    /// `acc ← acc²`.
    Square,
    /// `acc ← acc·base^d`, `d` non-zero and below `2^WIDTH`.
    Mul(usize),
}

/// Calls `step` with each step of `base^exp` in order, over the exponent's digits of `WIDTH`
/// bits (1 or 4) from its first non-zero one; `false`, calling nothing, for a zero exponent.
/// Plain loops, inlined into the caller, so each step is a direct call into its ring.
#[inline(always)]
pub(crate) fn walk<const WIDTH: u32>(exp: &[u8], mut step: impl FnMut(Step)) -> bool {
    const { assert!(WIDTH == 1 || WIDTH == 4) };
    let mask = (1u8 << WIDTH) - 1;
    let mut started = false;
    for byte in significant(exp) {
        let mut shift = 8;
        while shift > 0 {
            shift -= WIDTH;
            let d = usize::from((byte >> shift) & mask);
            if started {
                for _ in 0..WIDTH {
                    step(Step::Square);
                }
                if d != 0 {
                    step(Step::Mul(d));
                }
            } else if d != 0 {
                step(Step::First(d));
                started = true;
            }
        }
    }
    started
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// The steps, as the callers choose the width.
    fn steps(exp: &[u8]) -> Vec<Step> {
        let mut steps = Vec::new();
        if windowed(exp) {
            walk::<4>(exp, |s| steps.push(s));
        } else {
            walk::<1>(exp, |s| steps.push(s));
        }
        steps
    }

    /// Runs the steps on integers: the schedule computes `base^exp`.
    fn power(base: u128, exp: &[u8]) -> u128 {
        let mut acc = 1;
        for step in steps(exp) {
            acc = match step {
                Step::First(d) => base.pow(d as u32),
                Step::Square => acc * acc,
                Step::Mul(d) => acc * base.pow(d as u32),
            };
        }
        acc
    }

    #[test]
    fn steps_compute_the_power() {
        for exp in [0u64, 1, 2, 3, 5, 16, 17, 63, 100, 127] {
            let bytes = exp.to_be_bytes();
            assert_eq!(power(1, &bytes), 1);
            assert_eq!(power(1, &[]), 1);
            assert!(steps(&[0, 0]).is_empty());
            // Base 1 says nothing: a power of two fits any exponent below 128 in a u128.
            assert_eq!(power(2, &bytes), 1u128 << exp, "{exp}");
        }
        // Leading zero bytes do not count: this one is short, a 9-byte one takes windows.
        let short = [0, 0, 0, 0, 0, 0, 0, 0, 0x7f];
        assert!(!windowed(&short));
        let nine = [0, 0, 0, 0, 0, 0, 0, 0, 0x01];
        assert_eq!(power(2, &nine), 2);
        let windows = [1, 0, 0, 0, 0, 0, 0, 0, 0x5a];
        assert!(windowed(&windows));
        let steps = steps(&windows);
        assert_eq!(steps[0], Step::First(1));
        let rest = &steps[1..];
        // After the first digit: 14 zero nibbles, then 5 and a: 16 × 4 squares, two multiplies.
        assert_eq!(rest.iter().filter(|s| **s == Step::Square).count(), 64);
        assert_eq!(rest[rest.len() - 6..][..1], [Step::Mul(5)]);
        assert_eq!(rest.last(), Some(&Step::Mul(0xa)));
    }
}
