//! revm's journal behind one door for writes, so that a read of it can be remembered for as
//! long as the journal has not changed.
//!
//! `SELFBALANCE` is the one opcode that reads the journal at a price (5 gas) well under what
//! the read costs on this core: the map lookup alone (hashing a 20-byte key with revm's fixed
//! hasher, 64-bit multiplies on a 32-bit core, then the key comparison) is about 200 of the
//! ~365 guest instructions of a `SELFBALANCE POP` (BENCHMARKS.md, issue 53). A block of them
//! reads the same account's balance over and over while nothing in the journal changes.
//!
//! [`TrackedJournal`] owns revm's [`Journal`] privately: shared access is free
//! ([`TrackedJournal::get`]), but the only way to change it is [`TrackedJournal::get_mut`]
//! (and [`TrackedJournal::into_inner`], which gives it up), and that forgets the remembered
//! read first. So a remembered balance is exactly what the journal's map holds for that
//! address, warm in the same transaction, for as long as it is remembered: the journal's
//! state is plain data (no cell inside an account), so it cannot change under a shared
//! borrow, and every transfer, checkpoint, commit, revert, load or new transaction goes
//! through `get_mut`. The compiler holds [`crate::journal::Eip7610Journal`] to this: it cannot
//! reach the journal otherwise.

use alloy_primitives::{Address, U256};
use revm::context::journal::Journal;
use revm::Database;

/// revm's journal, and the last warm balance read from it while it has not changed since.
#[derive(Debug)]
pub struct TrackedJournal<DB: Database> {
    inner: Journal<DB>,
    /// An address warm in the journal's current transaction, and its balance in the map, both
    /// as the journal held them when read; `None` after any mutable access.
    warm: Option<(Address, U256)>,
}

impl<DB: Database> TrackedJournal<DB> {
    /// `journal`, with nothing remembered.
    pub fn new(journal: Journal<DB>) -> Self {
        Self {
            inner: journal,
            warm: None,
        }
    }

    /// The journal, to read.
    #[inline(always)]
    pub fn get(&self) -> &Journal<DB> {
        &self.inner
    }

    /// The journal, to change: forgets the remembered read.
    #[inline(always)]
    pub fn get_mut(&mut self) -> &mut Journal<DB> {
        self.warm = None;
        &mut self.inner
    }

    /// The journal, given up.
    pub fn into_inner(self) -> Journal<DB> {
        self.inner
    }

    /// The balance of `address` when the journal's map holds it warm in the current
    /// transaction (not flagged cold, touched in this transaction), as revm's load of an
    /// account already in the journal would return it; `None` otherwise (absent or cold: the
    /// caller goes through revm's load).
    #[inline(always)]
    pub fn warm_balance(&mut self, address: Address) -> Option<U256> {
        if let Some((known, balance)) = &self.warm {
            if *known == address {
                return Some(*balance);
            }
        }
        let account = self.inner.inner.state.get(&address)?;
        if account.is_cold_transaction_id(self.inner.inner.transaction_id) {
            return None;
        }
        let balance = account.info.balance;
        self.warm = Some((address, balance));
        Some(balance)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::address;
    use revm::context_interface::journaled_state::JournalTr;
    use revm::database::EmptyDB;
    use revm::state::{Account, AccountInfo, AccountStatus, TransactionId};

    const TARGET: Address = address!("0x00000000000000000000000000000000000000aa");
    const OTHER: Address = address!("0x00000000000000000000000000000000000000bb");

    /// A journal in transaction 1 holding `TARGET` (balance 1,000) and `OTHER` (balance 5),
    /// both warm.
    fn journal() -> TrackedJournal<EmptyDB> {
        let mut journal = Journal::new(EmptyDB::default());
        journal.inner.transaction_id = TransactionId::new(1).expect("small");
        for (address, balance) in [(TARGET, 1_000u64), (OTHER, 5)] {
            let mut account = Account::from(AccountInfo {
                balance: U256::from(balance),
                ..Default::default()
            });
            account.transaction_id = TransactionId::new(1).expect("small");
            account.status = AccountStatus::Touched;
            journal.inner.state.insert(address, account);
        }
        TrackedJournal::new(journal)
    }

    /// A remembered balance never outlives a change of the journal: after each way revm
    /// changes a balance (a transfer, its revert, a direct write through the map, a new
    /// transaction), the read gives what the map holds, never the remembered value.
    #[test]
    fn a_remembered_balance_follows_every_change() {
        let mut j = journal();
        assert_eq!(j.warm_balance(TARGET), Some(U256::from(1_000)));
        assert_eq!(
            j.warm_balance(TARGET),
            Some(U256::from(1_000)),
            "remembered"
        );
        assert_eq!(
            j.warm_balance(OTHER),
            Some(U256::from(5)),
            "another address"
        );

        let checkpoint = j.get_mut().checkpoint();
        assert_eq!(j.warm_balance(TARGET), Some(U256::from(1_000)));
        let failed = j.get_mut().transfer(TARGET, OTHER, U256::from(300));
        assert!(matches!(failed, Ok(None)), "{failed:?}");
        assert_eq!(
            j.warm_balance(TARGET),
            Some(U256::from(700)),
            "after a transfer"
        );
        assert_eq!(j.warm_balance(OTHER), Some(U256::from(305)));
        assert_eq!(j.warm_balance(TARGET), Some(U256::from(700)));
        j.get_mut().checkpoint_revert(checkpoint);
        assert_eq!(
            j.warm_balance(TARGET),
            Some(U256::from(1_000)),
            "after a revert"
        );

        j.get_mut()
            .inner
            .state
            .get_mut(&TARGET)
            .unwrap()
            .info
            .balance = U256::from(42);
        assert_eq!(
            j.warm_balance(TARGET),
            Some(U256::from(42)),
            "a write to the map"
        );

        j.get_mut().commit_tx();
        assert_eq!(j.warm_balance(TARGET), None, "cold in the next transaction");
    }

    /// A cold account, or one that is not there, is never read here (revm's load does it).
    #[test]
    fn cold_or_absent_accounts_are_left_to_revm() {
        let mut j = journal();
        j.get_mut().inner.state.get_mut(&TARGET).unwrap().status |= AccountStatus::Cold;
        assert_eq!(j.warm_balance(TARGET), None);
        let absent = address!("0x00000000000000000000000000000000000000cc");
        assert_eq!(j.warm_balance(absent), None);
        assert_eq!(j.warm_balance(OTHER), Some(U256::from(5)));
        assert_eq!(
            j.warm_balance(TARGET),
            None,
            "not from another address's read"
        );
    }
}
