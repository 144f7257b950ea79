//! The EVM the block executor runs: revm's mainnet EVM with one rule added, EIP-7610
//! ([`crate::journal`]), jump destinations found on a code's first jump ([`crate::jumps`]), and
//! system calls given the EIPs' gas ([`SYSTEM_CALL_GAS`]).
//!
//! alloy-evm's `EthEvm` fixes revm's default journal in its context type, so [`BlockEvm`] is
//! the same thin `alloy_evm::Evm` over revm with [`Eip7610Journal`], and revm's
//! `EthPrecompiles` (the precompile set alloy-evm wraps, through the same crypto hooks).

use alloy_evm::{Evm, EvmEnv};
use alloy_primitives::{Address, Bytes};
use revm::context::result::{EVMError, HaltReason, ResultAndState};
use revm::context::{BlockEnv, CfgEnv, Context, TxEnv};
use revm::handler::{EthFrame, EthPrecompiles, Handler, MainBuilder, MainnetHandler, SystemCallTx};
use revm::interpreter::interpreter::EthInterpreter;
use revm::primitives::hardfork::SpecId;
use revm::{Database, ExecuteEvm};

pub use crate::journal::{Eip7610Journal, StorageProbe};
use crate::jumps;

/// The gas of a system call (EIP-2935, EIP-4788, EIP-7002, EIP-7251) before Amsterdam:
/// 30,000,000. revm 43's `SYSTEM_CALL_GAS_LIMIT` adds EIP-8037's state-gas reservoir to it in
/// every fork, so a request contract that runs out of gas at 30 M would succeed there and the
/// block be judged on the wrong rule; from Amsterdam on the reservoir is the rule
/// ([`system_call_gas`]).
pub const SYSTEM_CALL_GAS: u64 = 30_000_000;

/// A system call's gas under `spec`: from Amsterdam, EIP-8037 gives the call a state-gas
/// reservoir for 16 storage writes above [`SYSTEM_CALL_GAS`] (revm's `SYSTEM_CALL_GAS_LIMIT`).
pub fn system_call_gas(spec: SpecId) -> u64 {
    if spec.is_enabled_in(SpecId::AMSTERDAM) {
        revm::handler::system_call::SYSTEM_CALL_GAS_LIMIT
    } else {
        SYSTEM_CALL_GAS
    }
}

pub use crate::journal::BlockContext;

type Inner<DB> = revm::handler::MainnetEvm<BlockContext<DB>>;

/// revm's mainnet EVM over [`BlockContext`], as alloy-evm's block executor drives it.
pub struct BlockEvm<DB: Database + StorageProbe> {
    inner: Inner<DB>,
}

impl<DB: Database + StorageProbe> core::fmt::Debug for BlockEvm<DB> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BlockEvm").finish_non_exhaustive()
    }
}

impl<DB: Database + StorageProbe> BlockEvm<DB> {
    /// The EVM over `db` in `env` (block and config).
    pub fn new(db: DB, env: EvmEnv) -> Self {
        let ctx = BlockContext::<DB>::new(db, env.cfg_env.spec)
            .with_block(env.block_env)
            .with_cfg(env.cfg_env);
        let mut inner = ctx.build_mainnet();
        // `JUMP` and `JUMPI` that analyse a witness code on its first jump.
        jumps::install(&mut inner.instruction);
        // `SWAP1`..`SWAP16` moving words, not bytes.
        crate::swaps::install(&mut inner.instruction);
        // `SELFBALANCE` read from the journal's map.
        crate::warm::install(&mut inner.instruction);
        Self { inner }
    }
}

impl<DB: alloy_evm::Database + StorageProbe> Evm for BlockEvm<DB> {
    type DB = DB;
    type Tx = TxEnv;
    type Error = EVMError<DB::Error>;
    type HaltReason = HaltReason;
    type Spec = SpecId;
    type BlockEnv = BlockEnv;
    type Precompiles = EthPrecompiles;
    type Inspector = ();

    fn block(&self) -> &BlockEnv {
        &self.inner.ctx.block
    }

    fn cfg_env(&self) -> &CfgEnv<SpecId> {
        &self.inner.ctx.cfg
    }

    fn chain_id(&self) -> u64 {
        self.inner.ctx.cfg.chain_id
    }

    fn transact_raw(&mut self, tx: TxEnv) -> Result<ResultAndState<HaltReason>, Self::Error> {
        self.inner.transact(tx)
    }

    fn transact_system_call(
        &mut self,
        caller: Address,
        contract: Address,
        data: Bytes,
    ) -> Result<ResultAndState<HaltReason>, Self::Error> {
        // revm's `system_call_with_caller`, but with the gas the EIPs give the call.
        let mut tx = TxEnv::new_system_tx_with_caller(caller, contract, data);
        tx.gas_limit = system_call_gas(self.inner.ctx.cfg.spec);
        self.inner.ctx.tx = tx;
        let mut handler =
            MainnetHandler::<Inner<DB>, EVMError<DB::Error>, EthFrame<EthInterpreter>>::default();
        let result = handler.run_system_call(&mut self.inner)?;
        let state = self.inner.finalize();
        Ok(ResultAndState::new(result, state))
    }

    fn finish(self) -> (DB, EvmEnv<SpecId>) {
        let Context {
            block: block_env,
            cfg: cfg_env,
            journaled_state,
            ..
        } = self.inner.ctx;
        (
            journaled_state.inner.into_inner().database,
            EvmEnv { block_env, cfg_env },
        )
    }

    /// No inspector: validation never traces.
    fn set_inspector_enabled(&mut self, _enabled: bool) {}

    fn components(&self) -> (&DB, &(), &EthPrecompiles) {
        (
            &self.inner.ctx.journaled_state.inner.get().database,
            &self.inner.inspector,
            &self.inner.precompiles,
        )
    }

    fn components_mut(&mut self) -> (&mut DB, &mut (), &mut EthPrecompiles) {
        (
            &mut self.inner.ctx.journaled_state.inner.get_mut().database,
            &mut self.inner.inspector,
            &mut self.inner.precompiles,
        )
    }
}
