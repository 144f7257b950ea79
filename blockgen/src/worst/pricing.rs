//! What a category's body and transactions cost under a fork, read from revm's own gas table
//! ([`GasParams`]) rather than written down per fork.
//!
//! The loop contract stops when the gas left is under what its bodies may cost
//! ([`super::contracts::Looped::reserve`]): a body priced too low runs the last round out of
//! gas, and the block is refused as a failed transaction. Amsterdam reprices exactly what the
//! state and code categories do (EIP-8038's cold account access and storage write, EIP-8037's
//! state gas for a new account, EIP-2780's transaction base, EIP-7976's calldata floor), so
//! their prices come from the table of the fork the block is made under.

use alloy_primitives::U256;
use revm::context_interface::cfg::gas_params::Eip2780TxInfo;
use revm::context_interface::cfg::GasParams;
use revm::primitives::hardfork::SpecId;

use crate::Fork;

/// The largest contract code before Amsterdam (EIP-170).
pub const MAX_CODE_EIP170: usize = revm::primitives::eip170::MAX_CODE_SIZE;
/// The largest contract code from Amsterdam (EIP-7954).
pub const MAX_CODE_EIP7954: usize = revm::primitives::eip7954::MAX_CODE_SIZE;

/// One fork's prices.
pub struct Pricing {
    fork: Fork,
    params: GasParams,
}

impl Pricing {
    /// The prices of `fork`.
    pub fn of(fork: Fork) -> Self {
        let spec = match fork {
            Fork::Prague => SpecId::PRAGUE,
            Fork::Osaka => SpecId::OSAKA,
            Fork::Amsterdam => SpecId::AMSTERDAM,
        };
        Pricing {
            fork,
            params: GasParams::new_spec(spec),
        }
    }

    /// A cold account access (`BALANCE`, `EXTCODESIZE`, `EXTCODEHASH`, `EXTCODECOPY`'s base).
    pub fn cold_account(&self) -> u64 {
        self.params.warm_storage_read_cost() + self.params.cold_account_additional_cost()
    }

    /// The static gas of opcode `op` in revm's gas table of the fork: for an account access,
    /// its warm price (EIP-8038 makes `EXTCODESIZE`'s two warm reads under Amsterdam).
    pub fn static_gas(&self, op: u8) -> u64 {
        let spec = match self.fork {
            Fork::Prague => SpecId::PRAGUE,
            Fork::Osaka => SpecId::OSAKA,
            Fork::Amsterdam => SpecId::AMSTERDAM,
        };
        u64::from(revm::interpreter::instructions::gas_table_spec(spec)[op as usize])
    }

    /// A cold `SLOAD`.
    pub fn cold_sload(&self) -> u64 {
        self.params.warm_storage_read_cost() + self.params.cold_storage_additional_cost()
    }

    /// A cold `SSTORE` changing an existing non-zero slot to another non-zero value.
    pub fn cold_sstore_reset(&self) -> u64 {
        self.params.sstore_static_gas()
            + self.params.cold_storage_cost()
            + self.params.sstore_reset_without_cold_load_cost()
    }

    /// A warm `SSTORE` of a slot the transaction already changed (EIP-2200's dirty slot: no
    /// refund moves while the new value is neither zero nor the original).
    pub fn warm_sstore_dirty(&self) -> u64 {
        self.params.sstore_static_gas()
    }

    /// `EXTCODECOPY` of `len` bytes of a cold account, memory already grown.
    pub fn cold_extcodecopy(&self, len: usize) -> u64 {
        self.cold_account() + self.params.extcodecopy(len)
    }

    /// `CREATE2` of `len` bytes of initcode making a new account with empty code, regular and
    /// state gas together (EIP-8037 draws state gas from the gas left when there is no
    /// reservoir, as for the generator's transactions under the cap); what the initcode runs
    /// is not counted.
    pub fn create2(&self, len: usize) -> u64 {
        self.params.create2_cost(len)
            + self.params.initcode_cost(len)
            + self.params.create_state_gas()
    }

    /// The largest code a contract may have.
    pub fn max_code(&self) -> usize {
        match self.fork {
            Fork::Prague | Fork::Osaka => MAX_CODE_EIP170,
            Fork::Amsterdam => MAX_CODE_EIP7954,
        }
    }

    /// The largest initcode (EIP-3860: twice the code limit, under EIP-7954 too).
    pub fn max_initcode(&self) -> usize {
        2 * self.max_code()
    }

    /// The gas a zero-value call transaction to another account with calldata `input` must
    /// have: its intrinsic gas or its calldata floor (EIP-7623, EIP-7976), whichever is larger.
    pub fn call_tx_gas(&self, input: &[u8]) -> u64 {
        let eip2780 = (self.fork == Fork::Amsterdam).then_some(Eip2780TxInfo {
            value: U256::ZERO,
            is_self_transfer: false,
        });
        let gas = self.params.initial_tx_gas(input, false, 0, 0, 0, eip2780);
        gas.initial_total_gas().max(gas.floor_gas())
    }
}
