//! The op chip's AIR.
//!
//! - The three register reads give `v`'s and `m`'s addresses and the count; the count's high
//!   bytes are constrained zero, so `R < 2^16`. The addresses' top limbs are range-checked so
//!   that they are below `2^pointer_max_bits` (as keccak's op chip does): the addresses then
//!   compose into field elements without wrapping.
//! - The 32 message words are memory reads; `v`'s 32 words are memory writes whose previous
//!   data is `v_pre`, so the pre-state is memory's and the post-state becomes memory's.
//! - `(timestamp, R, v_pre, m)` goes to the round chip and `(timestamp, v_post)` comes back
//!   (see [`crate::round::air`]), so `v_post` is `R` rounds of `v_pre`. Its bytes are bytes
//!   because the round chip's output bytes are.

use std::borrow::Borrow;

use openvm_circuit::{
    arch::{ExecutionBridge, ExecutionState},
    system::memory::{
        offline_checker::{MemoryBridge, MemoryWriteAuxCols},
        MemoryAddress,
    },
};
use openvm_circuit_primitives::{bitwise_op_lookup::BitwiseOperationLookupBus, ColumnsAir};
use openvm_instructions::riscv::{
    RV32_CELL_BITS, RV32_MEMORY_AS, RV32_REGISTER_AS, RV32_REGISTER_NUM_LIMBS,
};
use openvm_rv32im_circuit::adapters::abstract_compose;
use openvm_stark_backend::{
    interaction::{InteractionBuilder, PermutationCheckBus},
    p3_air::{Air, BaseAir},
    p3_field::PrimeCharacteristicRing,
    p3_matrix::Matrix,
    BaseAirWithPublicValues, PartitionedBaseAir,
};

use super::columns::{Blake2bOpCols, NUM_OP_COLS};
use crate::{
    round::{message, tag},
    Blake2bOpcode, STATE_BYTES, WORD_BYTES,
};

#[derive(Clone, Copy, Debug, derive_new::new, ColumnsAir)]
#[columns_via(Blake2bOpCols<u8>)]
pub struct Blake2bOpAir {
    pub execution_bridge: ExecutionBridge,
    pub memory_bridge: MemoryBridge,
    pub bitwise_lookup_bus: BitwiseOperationLookupBus,
    pub state_bus: PermutationCheckBus,
    pub ptr_max_bits: usize,
    pub offset: usize,
}

impl<F> BaseAirWithPublicValues<F> for Blake2bOpAir {}
impl<F> PartitionedBaseAir<F> for Blake2bOpAir {}
impl<F> BaseAir<F> for Blake2bOpAir {
    fn width(&self) -> usize {
        NUM_OP_COLS
    }
}

impl<AB: InteractionBuilder> Air<AB> for Blake2bOpAir {
    fn eval(&self, builder: &mut AB) {
        let main = builder.main();
        let local = main.row_slice(0).unwrap();
        let local: &Blake2bOpCols<AB::Var> = (*local).borrow();
        let is_valid = local.is_valid;
        builder.assert_bool(is_valid);

        let start = local.timestamp;
        let mut delta = 0usize;
        let mut timestamp_pp = || {
            delta += 1;
            start + AB::F::from_usize(delta - 1)
        };
        let register = |ptr| MemoryAddress::new(AB::F::from_u32(RV32_REGISTER_AS), ptr);

        // ==== Registers ====
        self.memory_bridge
            .read(
                register(local.rd_ptr),
                local.v_ptr,
                timestamp_pp(),
                &local.register_aux[0],
            )
            .eval(builder, is_valid);
        self.memory_bridge
            .read(
                register(local.rs1_ptr),
                local.m_ptr,
                timestamp_pp(),
                &local.register_aux[1],
            )
            .eval(builder, is_valid);
        let count: [AB::Expr; RV32_REGISTER_NUM_LIMBS] = [
            local.rounds[0].into(),
            local.rounds[1].into(),
            AB::Expr::ZERO,
            AB::Expr::ZERO,
        ];
        self.memory_bridge
            .read(
                register(local.rs2_ptr),
                count,
                timestamp_pp(),
                &local.register_aux[2],
            )
            .eval(builder, is_valid);

        // Both addresses below 2^ptr_max_bits.
        assert!(self.ptr_max_bits >= RV32_CELL_BITS * (RV32_REGISTER_NUM_LIMBS - 1));
        let limb_shift =
            AB::F::from_usize(1 << (RV32_CELL_BITS * RV32_REGISTER_NUM_LIMBS - self.ptr_max_bits));
        self.bitwise_lookup_bus
            .send_range(
                local.v_ptr[RV32_REGISTER_NUM_LIMBS - 1] * limb_shift,
                local.m_ptr[RV32_REGISTER_NUM_LIMBS - 1] * limb_shift,
            )
            .eval(builder, is_valid);
        let v_ptr: AB::Expr = abstract_compose(local.v_ptr);
        let m_ptr: AB::Expr = abstract_compose(local.m_ptr);

        // ==== Memory: read m, then write v ====
        let memory = |ptr: AB::Expr| MemoryAddress::new(AB::F::from_u32(RV32_MEMORY_AS), ptr);
        for (i, (word, aux)) in local
            .m
            .chunks_exact(WORD_BYTES)
            .zip(&local.m_aux)
            .enumerate()
        {
            let word: [AB::Var; WORD_BYTES] = word.try_into().unwrap();
            self.memory_bridge
                .read(
                    memory(m_ptr.clone() + AB::F::from_usize(i * WORD_BYTES)),
                    word,
                    timestamp_pp(),
                    aux,
                )
                .eval(builder, is_valid);
        }
        for (i, ((pre, post), aux)) in local
            .v_pre
            .chunks_exact(WORD_BYTES)
            .zip(local.v_post.chunks_exact(WORD_BYTES))
            .zip(local.v_aux)
            .enumerate()
        {
            let post: [AB::Var; WORD_BYTES] = post.try_into().unwrap();
            let write_aux = MemoryWriteAuxCols {
                base: aux,
                prev_data: pre.try_into().unwrap(),
            };
            self.memory_bridge
                .write(
                    memory(v_ptr.clone() + AB::F::from_usize(i * WORD_BYTES)),
                    post,
                    timestamp_pp(),
                    &write_aux,
                )
                .eval(builder, is_valid);
        }

        // ==== Execution ====
        self.execution_bridge
            .execute_and_increment_pc(
                AB::Expr::from_usize(Blake2bOpcode::BLAKE2B_ROUNDS as usize + self.offset),
                [
                    local.rd_ptr.into(),
                    local.rs1_ptr.into(),
                    local.rs2_ptr.into(),
                    AB::Expr::from_u32(RV32_REGISTER_AS),
                    AB::Expr::from_u32(RV32_MEMORY_AS),
                ],
                ExecutionState::new(local.pc, local.timestamp),
                AB::F::from_usize(delta),
            )
            .eval(builder, is_valid);

        // ==== The call, to and from the round chip ====
        let ts: AB::Expr = local.timestamp.into();
        let half = STATE_BYTES / 2;
        let bytes = |cells: &[AB::Var]| cells.iter().map(|&c| c.into()).collect::<Vec<AB::Expr>>();
        let count: AB::Expr = local.rounds[0] + local.rounds[1] * AB::F::from_u32(256);
        self.state_bus.send(
            builder,
            message(
                tag::V_LO,
                ts.clone(),
                std::iter::once(count).chain(bytes(&local.v_pre[..half])),
            ),
            is_valid,
        );
        self.state_bus.send(
            builder,
            message(tag::V_HI, ts.clone(), bytes(&local.v_pre[half..])),
            is_valid,
        );
        self.state_bus.send(
            builder,
            message(tag::M_LO, ts.clone(), bytes(&local.m[..half])),
            is_valid,
        );
        self.state_bus.send(
            builder,
            message(tag::M_HI, ts.clone(), bytes(&local.m[half..])),
            is_valid,
        );
        self.state_bus.receive(
            builder,
            message(tag::OUT_LO, ts.clone(), bytes(&local.v_post[..half])),
            is_valid,
        );
        self.state_bus.receive(
            builder,
            message(tag::OUT_HI, ts, bytes(&local.v_post[half..])),
            is_valid,
        );
    }
}
