//! The [`Verdict`]: what a validation says about a block, and which of the three a
//! [`ValidationError`] is (the block's fault, the witness's, or the input's). Kept apart from
//! the errors themselves: the errors name what is wrong, this module decides whose fault it is,
//! and the guest's exit code and the host's exit status follow from that alone.

use crate::error::{DbError, ValidationError};

/// What a validation says about a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The block obeys the chain's rules.
    Valid,
    /// The block breaks a rule, named by the error.
    Invalid,
    /// The witness lacks (or holds a corrupt copy of) what validation needs: a trie node, a
    /// bytecode, an ancestor header, the pre-state root. It says nothing about the block.
    Insufficient,
    /// The input cannot be validated at all (a config no block runs under, a proof-of-work
    /// block).
    Unusable,
}

impl Verdict {
    /// The verdict of a validation's result.
    pub fn of<T>(result: &Result<T, ValidationError>) -> Self {
        match result {
            Ok(_) => Self::Valid,
            Err(e) => e.verdict(),
        }
    }

    /// Its name in reports and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Self::Valid => "valid",
            Self::Invalid => "invalid",
            Self::Insufficient => "insufficient",
            Self::Unusable => "unusable",
        }
    }

    /// The guest's exit code for it: 0 valid, 17 invalid, 18 unusable, 19 insufficient (16 plus
    /// [`Verdict::exit_code`], so that none is a panic's 1).
    pub const fn guest_exit_code(self) -> u8 {
        16 + match self {
            Self::Valid => return 0,
            Self::Invalid => 1,
            Self::Unusable => 2,
            Self::Insufficient => 3,
        }
    }

    /// The verdict a guest's exit code reports; `None` for any other code (a panic's 1, a trap).
    pub fn from_guest_exit_code(code: u32) -> Option<Self> {
        [
            Self::Valid,
            Self::Invalid,
            Self::Unusable,
            Self::Insufficient,
        ]
        .into_iter()
        .find(|v| u32::from(v.guest_exit_code()) == code)
    }

    /// The process exit status that reports it: 0 valid, 1 invalid, 2 unusable, 3 insufficient.
    pub fn exit_code(self) -> u8 {
        match self {
            Self::Valid => 0,
            Self::Invalid => 1,
            Self::Unusable => 2,
            Self::Insufficient => 3,
        }
    }
}

impl ValidationError {
    /// Whether the error is the block's fault (a broken rule), the witness's (missing or corrupt
    /// data) or the input's (unusable).
    pub fn verdict(&self) -> Verdict {
        use ValidationError::*;
        match self {
            MissingWitnessData(DbError::MalformedCode(_)) => Verdict::Unusable,
            Witness(_)
            | AncestorRlp { .. }
            | AncestorNumber { .. }
            | AncestorLink { .. }
            | TooManyAncestors(_)
            | ParentHash { .. }
            | MissingWitnessData(_)
            | StateUpdate(_) => Verdict::Insufficient,
            Chain(_) | PreMerge(_) | UnsupportedFork { .. } | UnscheduledFork { .. } => {
                Verdict::Unusable
            }
            BlockRlp(_)
            | BlobSidecarInBlock { .. }
            | HeaderField { .. }
            | GasLimit { .. }
            | ForkField { .. }
            | BlockTooLarge { .. }
            | BodyRoot { .. }
            | Withdrawals(_)
            | SenderRecovery { .. }
            | PublicKeyCount { .. }
            | PublicKey { .. }
            | PublicKeyPrefix { .. }
            | Execution(_)
            | BlockGasExceeded { .. }
            | SystemContractEmpty(_)
            | DepositLayout { .. }
            | GasUsed { .. }
            | BlobGasUsed { .. }
            | ReceiptsRoot { .. }
            | LogsBloom { .. }
            | RequestsHash { .. }
            | BlockAccessListItems { .. }
            | BlockAccessListHash { .. }
            | StateRoot { .. } => Verdict::Invalid,
        }
    }
}
