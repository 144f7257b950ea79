//! The machines [`xorin`](super::xorin) runs on.
//!
//! - [`OpenVm`] (guest only): OpenVM 2.0.2's `XORIN` and `KECCAKF` custom instructions, issued
//!   directly. OpenVM's own `native_xorin` is not called: it is the allocating wrapper this
//!   crate replaces.
//! - [`Soft`] (host): a software model of the same two instructions. Its `XORIN` **asserts**
//!   the preconditions the prover enforces (both pointers `W`-aligned, `len` a multiple of `W`,
//!   `len <= RATE`) on every call, and reproduces the executor's snapshot semantics (all state
//!   words read, then all input words, then the writes). The host therefore runs exactly the
//!   guest's lead/bulk/tail logic, and a misuse that execution would not notice fails a test.
//!   The permutation is RustCrypto's software Keccak-f\[1600\].

use super::xorin::{Machine, State};
#[cfg(not(target_os = "zkvm"))]
use super::RATE;

/// OpenVM's keccak extension (`XORIN`, `KECCAKF`), as on OpenVM 2.0.2 (`W = 4`).
#[cfg(target_os = "zkvm")]
#[derive(Debug, Clone, Copy)]
pub enum OpenVm {}

#[cfg(target_os = "zkvm")]
impl Machine for OpenVm {
    const WORD: usize = openvm_keccak256_guest::MIN_ALIGN;

    #[inline(always)]
    unsafe fn xorin_aligned(state: *mut u8, input: *const u8, len: usize) {
        use openvm_keccak256_guest::{OPCODE, XORIN_FUNCT3, XORIN_FUNCT7};
        let mut state = state;
        // SAFETY: the caller guarantees aligned pointers valid for `len <= RATE` bytes, which is
        // the instruction's contract.
        openvm_platform::custom_insn_r!(
            opcode = OPCODE,
            funct3 = XORIN_FUNCT3,
            funct7 = XORIN_FUNCT7,
            rd = InOut state,
            rs1 = In input,
            rs2 = In len
        );
    }

    #[inline(always)]
    fn keccakf(state: &mut State) {
        use openvm_keccak256_guest::{KECCAKF_FUNCT3, KECCAKF_FUNCT7, OPCODE};
        let mut ptr = state.0.as_mut_ptr();
        // SAFETY: `State` is 200 bytes and 8-byte aligned, the instruction's contract.
        openvm_platform::custom_insn_r!(
            opcode = OPCODE,
            funct3 = KECCAKF_FUNCT3,
            funct7 = KECCAKF_FUNCT7,
            rd = InOut ptr,
            rs1 = Const "x0",
            rs2 = Const "x0",
        );
    }
}

/// Software model of the keccak extension with word size `W` (4: OpenVM 2.0.2's riscv32,
/// 8: the riscv64 line).
#[cfg(not(target_os = "zkvm"))]
#[derive(Debug, Clone, Copy)]
pub enum Soft<const W: usize> {}

#[cfg(not(target_os = "zkvm"))]
impl<const W: usize> Machine for Soft<W> {
    const WORD: usize = W;

    unsafe fn xorin_aligned(state: *mut u8, input: *const u8, len: usize) {
        assert!(
            (state as usize).is_multiple_of(W),
            "XORIN: state pointer {state:p} is not {W}-byte aligned"
        );
        assert!(
            (input as usize).is_multiple_of(W),
            "XORIN: input pointer {input:p} is not {W}-byte aligned"
        );
        assert!(
            len.is_multiple_of(W),
            "XORIN: len {len} is not a multiple of {W}"
        );
        assert!(len <= RATE, "XORIN: len {len} exceeds the rate {RATE}");
        // Snapshot semantics, as in OpenVM's executor: read all state bytes, then all input
        // bytes, then write.
        let mut old_state = [0u8; RATE];
        let mut old_input = [0u8; RATE];
        // SAFETY: the caller guarantees both pointers are valid for `len <= RATE` bytes; the
        // copies go to distinct local buffers.
        unsafe {
            core::ptr::copy(state, old_state.as_mut_ptr(), len);
            core::ptr::copy(input, old_input.as_mut_ptr(), len);
        }
        for k in 0..len {
            old_state[k] ^= old_input[k];
        }
        // SAFETY: as above; the local buffer cannot overlap `state`.
        unsafe { core::ptr::copy(old_state.as_ptr(), state, len) };
    }

    fn keccakf(state: &mut State) {
        let mut lanes = [0u64; 25];
        for (lane, bytes) in lanes.iter_mut().zip(state.0.chunks_exact(8)) {
            *lane = u64::from_le_bytes(bytes.try_into().expect("8-byte chunk"));
        }
        keccak::f1600(&mut lanes);
        for (lane, bytes) in lanes.iter().zip(state.0.chunks_exact_mut(8)) {
            bytes.copy_from_slice(&lane.to_le_bytes());
        }
    }
}
