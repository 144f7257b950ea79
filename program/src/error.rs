//! Why a block is not a valid state transition: one variant per check, each naming the field,
//! node or root and the expected and actual values.

use alloc::boxed::Box;
use alloc::string::String;
use alloy_primitives::{Address, Bloom, B256};
use mpt::TrieError;

use crate::chain::ChainConfigError;
use crate::witness::WitnessError;

/// What the execution needed that the witness does not provide.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DbError {
    /// A trie read failed (missing or malformed node).
    #[error(transparent)]
    Trie(#[from] TrieError),
    /// No witness code hashes to an account's code hash.
    #[error("bytecode {0} is not in the witness")]
    MissingCode(B256),
    /// BLOCKHASH asked for a block whose header the witness does not carry.
    #[error("block hash of block {0} requested, but the witness has no such ancestor header")]
    MissingBlockHash(u64),
    /// A pre-state code starts as an EIP-7702 delegation (`0xef01`) but is not one: no
    /// execution can represent it (a custom pre-state can hold it; mainnet's cannot).
    #[error("bytecode {0} starts with 0xef01 but is not an EIP-7702 delegation")]
    MalformedCode(B256),
    /// The pre-state's source could not give what execution read (the host's fetcher over
    /// JSON-RPC, which keeps its own typed error; never the witness). No payload: a `String`
    /// here made every `DbError` carry drop glue through the guest's hot database paths
    /// (measured: ~107 K instructions on 24171384).
    #[error("the pre-state source could not answer")]
    Unavailable,
}

impl revm::database::DBErrorMarker for DbError {}

/// A failed validation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValidationError {
    /// The block is not `rlp([header, transactions, ommers, withdrawals])`.
    #[error("block RLP is malformed: {0}")]
    BlockRlp(alloy_rlp::Error),
    /// The chain config cannot be validated under.
    #[error("chain config: {0}")]
    Chain(ChainConfigError),
    /// A blob transaction in the block is in its network form, with the sidecar (blobs,
    /// commitments, proofs): a block carries only the transaction the chain hashes.
    #[error("transaction {index} is a blob transaction with its sidecar (network form), which a block never carries")]
    BlobSidecarInBlock {
        /// Its index in the block.
        index: usize,
    },
    /// The witness cannot give the pre-state.
    #[error(transparent)]
    Witness(#[from] WitnessError),
    /// An ancestor header does not decode.
    #[error("ancestor header {index} is malformed: {source}")]
    AncestorRlp {
        /// Index in the witness's `headers`.
        index: usize,
        /// The RLP error.
        source: alloy_rlp::Error,
    },
    /// Ancestor headers are not consecutive.
    #[error("ancestor header {index} has number {got}, expected {expected}")]
    AncestorNumber {
        /// Index in `headers`.
        index: usize,
        /// The previous header's number + 1.
        expected: u64,
        /// Its number.
        got: u64,
    },
    /// An ancestor's `parent_hash` is not the previous header's hash.
    #[error(
        "ancestor header {index}: parent_hash {got} is not the previous header's hash {expected}"
    )]
    AncestorLink {
        /// Index in `headers`.
        index: usize,
        /// keccak256 of the previous header.
        expected: B256,
        /// Its `parent_hash`.
        got: B256,
    },
    /// More ancestors than BLOCKHASH can reach.
    #[error("{0} ancestor headers; at most 256 are allowed")]
    TooManyAncestors(usize),
    /// The block's `parent_hash` is not the hash of the last witness header.
    #[error("parent_hash {got} is not the hash of the parent header {expected}")]
    ParentHash {
        /// keccak256 of the parent header.
        expected: B256,
        /// The block's `parent_hash`.
        got: B256,
    },
    /// A fork this verifier does not validate (proof-of-work blocks).
    #[error("block {0} is before the merge: proof-of-work blocks are not supported")]
    PreMerge(u64),
    /// A header field differs from what the rules and the parent imply.
    #[error("header {field}: expected {expected}, got {got}")]
    HeaderField {
        /// The field's name.
        field: &'static str,
        /// What the rules require (rendered).
        expected: String,
        /// What the header says (rendered).
        got: String,
    },
    /// The gas limit moved by 1/1024 of the parent's or more, or is under 5000.
    #[error("header gas_limit {got} is out of bounds for parent gas limit {parent}")]
    GasLimit {
        /// The parent's gas limit.
        parent: u64,
        /// The block's.
        got: u64,
    },
    /// The block is under a fork whose rules this verifier does not implement.
    #[error("block {number} is under {fork}, whose rules this verifier does not implement")]
    UnsupportedFork {
        /// The block's number.
        number: u64,
        /// The fork.
        fork: alloy_hardforks::EthereumHardfork,
    },
    /// The header has the shape of a fork the chain config does not schedule at all (as
    /// mainnet's built-in config leaves Amsterdam): whether the chain has activated it is not
    /// known here, so the block is neither valid nor invalid under this config.
    #[error("block {number} has {fork}'s header fields, and the chain config does not schedule {fork}: give a config that schedules it (--chain FILE)")]
    UnscheduledFork {
        /// The block's number.
        number: u64,
        /// The fork.
        fork: alloy_hardforks::EthereumHardfork,
    },
    /// A field the fork requires is absent, or one it forbids is present.
    #[error("header field {field} must be {} at this fork", if *.required { "present" } else { "absent" })]
    ForkField {
        /// The field's name.
        field: &'static str,
        /// Whether the fork requires it.
        required: bool,
    },
    /// The block's RLP is over Osaka's size limit (EIP-7934).
    #[error("block RLP is {size} bytes, over the {limit}-byte limit")]
    BlockTooLarge {
        /// Its size.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// A body root differs from the header's.
    #[error("{field} mismatch: header says {expected}, body gives {got}")]
    BodyRoot {
        /// `transactions_root`, `withdrawals_root` or `ommers_hash`.
        field: &'static str,
        /// The header's value.
        expected: B256,
        /// Computed from the body.
        got: B256,
    },
    /// The body has withdrawals where the fork has none, or none where it requires them.
    #[error("withdrawals must be {} at this fork", if *.0 { "present" } else { "absent" })]
    Withdrawals(bool),
    /// A transaction's signature does not recover a sender.
    #[error("transaction {index}: sender recovery failed: {reason}")]
    SenderRecovery {
        /// Its index in the block.
        index: usize,
        /// What failed.
        reason: String,
    },
    /// Not one given public key per transaction (a standard input's `public_keys`).
    #[error("{keys} public keys given for {txs} transactions")]
    PublicKeyCount {
        /// Keys given.
        keys: usize,
        /// Transactions in the block.
        txs: usize,
    },
    /// A given public key is not the key its transaction's signature recovers (with the
    /// signature's own y-parity): it is another key, possibly the signature's other recovery
    /// candidate, which verifies the signature too.
    #[error(
        "transaction {index}: the given public key (address {given}) is not its signer's \
         (the signature recovers {signer})"
    )]
    PublicKey {
        /// Its index in the block.
        index: usize,
        /// The signer the signature recovers.
        signer: Address,
        /// The address of the key given.
        given: Address,
    },
    /// A given public key is not in uncompressed SEC1 form (`0x04 ‖ x ‖ y`).
    #[error("transaction {index}: the given public key starts {prefix:#04x}, not 0x04")]
    PublicKeyPrefix {
        /// Its index in the block.
        index: usize,
        /// Its first byte.
        prefix: u8,
    },
    /// A deposit event of the deposit contract does not have the contract's layout (EIP-6110,
    /// Prague on: [`crate::deposits`]).
    #[error("transaction {tx}, log {log}: a deposit event with another layout than the deposit contract's: {reason}")]
    DepositLayout {
        /// The transaction's index in the block.
        tx: usize,
        /// The log's index among the transaction's logs.
        log: usize,
        /// How it breaks the layout.
        reason: crate::deposits::DepositLayoutError,
    },
    /// The witness lacks something execution needed.
    #[error("execution needs what the witness lacks: {0}")]
    MissingWitnessData(DbError),
    /// revm / the block executor rejected the block (invalid transaction, failed system call).
    #[error("execution failed: {0}")]
    Execution(String),
    /// A transaction's gas limit is more than the block has left: in the regular dimension
    /// (the limit, capped by EIP-7825 from Osaka, against the gas used so far) or, from
    /// Amsterdam, in EIP-8037's state dimension (the whole limit against the state gas used).
    #[error(
        "transaction {index}: gas limit {gas_limit} is more than the block's {available} left"
    )]
    BlockGasExceeded {
        /// The transaction's index.
        index: usize,
        /// Its gas limit.
        gas_limit: u64,
        /// What the block had left in the dimension that refused it.
        available: u64,
    },
    /// From Prague on, a request contract (EIP-7002, EIP-7251) has no code when its end-of-block
    /// system call runs.
    #[error("system contract {0} has no code")]
    SystemContractEmpty(alloy_primitives::Address),
    /// Gas used by execution differs from the header's.
    #[error("gas_used mismatch: header says {expected}, execution used {got}")]
    GasUsed {
        /// The header's.
        expected: u64,
        /// Execution's.
        got: u64,
    },
    /// Blob gas used differs from the header's.
    #[error("blob_gas_used mismatch: header says {expected}, transactions use {got}")]
    BlobGasUsed {
        /// The header's.
        expected: u64,
        /// Computed.
        got: u64,
    },
    /// The receipts root differs from the header's.
    #[error("receipts_root mismatch: header says {expected}, execution gives {got}")]
    ReceiptsRoot {
        /// The header's.
        expected: B256,
        /// Computed.
        got: B256,
    },
    /// The logs bloom differs from the header's.
    #[error("logs_bloom mismatch: header says {expected}, execution gives {got}")]
    LogsBloom {
        /// The header's (boxed: 256 bytes each would bloat every `Result`).
        expected: Box<Bloom>,
        /// Computed.
        got: Box<Bloom>,
    },
    /// The EIP-7685 requests hash differs from the header's.
    #[error("requests_hash mismatch: header says {expected}, execution gives {got}")]
    RequestsHash {
        /// The header's.
        expected: B256,
        /// Computed.
        got: B256,
    },
    /// EIP-7928: the block access list execution builds holds more items than the gas limit
    /// allows.
    #[error("block access list holds {items} items, more than the gas limit's {limit}")]
    BlockAccessListItems {
        /// Accounts and slots in the list.
        items: u64,
        /// `gas_limit / ITEM_COST`.
        limit: u64,
    },
    /// EIP-7928: the block access list execution builds does not hash to the header's
    /// `block_access_list_hash`.
    #[error("block_access_list_hash mismatch: header says {expected}, execution gives {got}")]
    BlockAccessListHash {
        /// The header's.
        expected: B256,
        /// Computed.
        got: B256,
    },
    /// Applying the state changes to the trie failed (a node needed to restructure it is
    /// missing).
    #[error("applying state changes: {0}")]
    StateUpdate(TrieError),
    /// The post-state root differs from the header's.
    #[error("state_root mismatch: header says {expected}, execution gives {got}")]
    StateRoot {
        /// The header's.
        expected: B256,
        /// Computed.
        got: B256,
    },
}

/// Renders a header field mismatch.
pub(crate) fn field<T: core::fmt::Display>(
    field: &'static str,
    expected: T,
    got: T,
) -> ValidationError {
    use alloc::string::ToString;
    ValidationError::HeaderField {
        field,
        expected: expected.to_string(),
        got: got.to_string(),
    }
}

/// Renders an optional value.
pub(crate) fn opt<T: core::fmt::Display>(v: Option<T>) -> String {
    use alloc::string::ToString;
    v.map_or_else(|| "none".into(), |v| v.to_string())
}
