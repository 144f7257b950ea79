//! `SELFBALANCE` read where the executing account lies.
//!
//! revm's `SELFBALANCE` asks the host for the executing account's balance as it asks for any
//! account's: through the journal's general load (`load_account_mut_optional`), which finds the
//! account's map entry, builds a `JournaledAccount` handle and a `StateLoad` around it, and
//! copies them out. For a 5-gas opcode that is about 570 guest instructions (`host profile` of
//! `worst-selfbalance`: the load 37%, `memcpy` of those structures 33%), the dearest opcode per
//! gas that is not a precompile (4.2× the mainnet average per gas, BENCHMARKS.md).
//!
//! The executing account is always in the journal, and warm: the frame was entered by loading
//! it. For a warm account already in the journal, revm's load does nothing but return it (no
//! journal entry, no database read, no change of status), so reading the balance from the map
//! directly is the same instruction; and while the journal has not changed, a second read of
//! the same account gives the same balance, so the read is remembered until the journal's next
//! change ([`crate::tracked::TrackedJournal::warm_balance`]: a block of `SELFBALANCE`s pays the
//! map lookup once per run, not once per opcode). [`selfbalance`] does that, and leaves every
//! other case (an account that is not there, or cold, and any fork before Istanbul, where the
//! opcode does not exist) to revm's own instruction. The tests run both on the same journals (warm, cold,
//! from an earlier transaction, absent; before and after Istanbul; on a full stack); the EF
//! tests' `stSelfBalance` cases run it in whole blocks.

use revm::bytecode::opcode::SELFBALANCE;
use revm::handler::instructions::EthInstructions;
use revm::interpreter::interpreter::EthInterpreter;
use revm::interpreter::interpreter_types::{InputsTr, RuntimeFlag};
use revm::interpreter::{
    Instruction, InstructionContext, InstructionExecResult, InstructionResult,
};
use revm::primitives::hardfork::SpecId;
use revm::Database;

use crate::journal::{BlockContext, StorageProbe};

/// Puts [`selfbalance`] in `instructions` in place of revm's, at revm's gas.
pub(crate) fn install<DB: Database + StorageProbe>(
    instructions: &mut EthInstructions<EthInterpreter, BlockContext<DB>>,
) {
    let gas = *instructions.gas_table();
    instructions.insert_instruction(
        SELFBALANCE,
        Instruction::new(selfbalance::<DB>),
        gas[SELFBALANCE as usize],
    );
}

/// revm's `SELFBALANCE`, reading a warm executing account's balance from the journal's map.
fn selfbalance<DB: Database + StorageProbe>(
    ctx: InstructionContext<'_, BlockContext<DB>, EthInterpreter>,
) -> InstructionExecResult {
    let interpreter = &mut *ctx.interpreter;
    if interpreter
        .runtime_flag
        .spec_id()
        .is_enabled_in(SpecId::ISTANBUL)
    {
        let journal = &mut ctx.host.journaled_state.inner;
        if let Some(balance) = journal.warm_balance(interpreter.input.target_address()) {
            if !interpreter.stack.push(balance) {
                return Err(InstructionResult::StackOverflow);
            }
            return Ok(());
        }
    }
    revm::interpreter::instructions::host::selfbalance(InstructionContext {
        interpreter,
        host: ctx.host,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloy_primitives::{address, Address, U256};
    use revm::database::EmptyDB;
    use revm::interpreter::Interpreter;
    use revm::state::{Account, AccountInfo, AccountStatus, TransactionId};
    use revm::Database;

    /// revm's empty database, with no storage anywhere.
    #[derive(Debug, Default)]
    struct Empty(EmptyDB);

    impl Database for Empty {
        type Error = <EmptyDB as Database>::Error;
        fn basic(&mut self, a: Address) -> Result<Option<AccountInfo>, Self::Error> {
            self.0.basic(a)
        }
        fn code_by_hash(
            &mut self,
            h: alloy_primitives::B256,
        ) -> Result<revm::bytecode::Bytecode, Self::Error> {
            self.0.code_by_hash(h)
        }
        fn storage(&mut self, a: Address, k: U256) -> Result<U256, Self::Error> {
            self.0.storage(a, k)
        }
        fn block_hash(&mut self, n: u64) -> Result<alloy_primitives::B256, Self::Error> {
            self.0.block_hash(n)
        }
    }

    impl StorageProbe for Empty {
        fn has_storage(&mut self, _: Address) -> bool {
            false
        }
    }

    const TARGET: Address = address!("0x00000000000000000000000000000000000000aa");

    /// How the executing account stands in the journal before the instruction.
    #[derive(Debug, Clone, Copy)]
    enum Case {
        /// In the map and warm in this transaction (the fast path).
        Warm,
        /// In the map with the `Cold` flag.
        ColdFlag,
        /// In the map, last touched in an earlier transaction.
        EarlierTransaction,
        /// Not in the map (revm loads it from the database).
        Absent,
    }

    fn context(case: Case, spec: SpecId) -> BlockContext<Empty> {
        let mut ctx = BlockContext::<Empty>::new(Empty::default(), spec);
        let journal = &mut ctx.journaled_state.inner.get_mut().inner;
        journal.transaction_id = TransactionId::new(7).expect("small");
        let info = AccountInfo {
            balance: U256::from(0x1234_5678_9abc_def0u64) << 100,
            nonce: 3,
            ..Default::default()
        };
        let mut account = Account::from(info);
        account.transaction_id = TransactionId::new(7).expect("small");
        account.status = AccountStatus::Touched;
        match case {
            Case::Warm => {}
            Case::ColdFlag => account.status |= AccountStatus::Cold,
            Case::EarlierTransaction => {
                account.transaction_id = TransactionId::new(6).expect("small")
            }
            Case::Absent => return ctx,
        }
        journal.state.insert(TARGET, account);
        ctx
    }

    fn interpreter(spec: SpecId, depth: usize) -> Interpreter<EthInterpreter> {
        let mut interpreter = Interpreter::<EthInterpreter>::default();
        interpreter.input.target_address = TARGET;
        interpreter.runtime_flag.spec_id = spec;
        for k in 0..depth {
            assert!(interpreter.stack.push(U256::from(k)));
        }
        interpreter
    }

    /// In every case, before and after Istanbul and on a full stack, `selfbalance` returns,
    /// pushes and leaves the journal (its accounts and its entries) exactly as revm's
    /// instruction does, and what it pushes is the account's balance.
    #[test]
    fn selfbalance_does_what_revms_does() {
        for spec in [
            SpecId::PETERSBURG,
            SpecId::ISTANBUL,
            SpecId::OSAKA,
            SpecId::AMSTERDAM,
        ] {
            for case in [
                Case::Warm,
                Case::ColdFlag,
                Case::EarlierTransaction,
                Case::Absent,
            ] {
                for depth in [0, 1, 1023, 1024] {
                    let (mut ours, mut theirs) = (context(case, spec), context(case, spec));
                    let (mut i_ours, mut i_theirs) =
                        (interpreter(spec, depth), interpreter(spec, depth));
                    let got = selfbalance::<Empty>(InstructionContext {
                        interpreter: &mut i_ours,
                        host: &mut ours,
                    });
                    let expected =
                        revm::interpreter::instructions::host::selfbalance(InstructionContext {
                            interpreter: &mut i_theirs,
                            host: &mut theirs,
                        });
                    let what = format!("{case:?} under {spec:?}, {depth} items");
                    assert_eq!(got, expected, "{what}");
                    assert_eq!(i_ours.stack.data(), i_theirs.stack.data(), "{what}");
                    let (a, b) = (
                        &ours.journaled_state.inner.get().inner,
                        &theirs.journaled_state.inner.get().inner,
                    );
                    assert_eq!(a.state, b.state, "{what}");
                    assert_eq!(a.journal, b.journal, "{what}");
                    if spec >= SpecId::ISTANBUL && depth < 1024 {
                        let top = i_ours.stack.data().last().copied();
                        let balance = a.state.get(&TARGET).map(|acc| acc.info.balance);
                        assert_eq!(top, balance, "{what}");
                    }
                }
            }
        }
    }
}
