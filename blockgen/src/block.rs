//! Block 1 of the devnet: signed transactions, executed, then sealed with their results.

use alloy_consensus::transaction::Recovered;
use alloy_consensus::TxReceipt;
use alloy_consensus::{
    proofs, Block, BlockBody, Header, SignableTransaction, Signed, TxEip1559, TxEip2930,
    TxEnvelope, TxLegacy, EMPTY_OMMER_ROOT_HASH,
};
use alloy_eips::eip1559::BaseFeeParams;
use alloy_eips::eip2930::{AccessList, AccessListItem};
use alloy_eips::eip4895::Withdrawal;
use alloy_hardforks::EthereumHardforks;
use alloy_primitives::{keccak256, Address, Bloom, Bytes, Signature, TxKind, B256, U256};
use k256::ecdsa::SigningKey;
use program::body::recover_senders;
use program::db::WitnessDb;
use program::execute::{apply_bundle, execute};
use program::header::decode_ancestors;
use program::witness::open_pre_state;
use program::ValidationError;

use super::{address_of, asm, balance_slot, Devnet, GenError, Generated};
use super::{COINBASE, FACTORY, HASHER, TOKEN};

const GWEI: u128 = 1_000_000_000;

/// `tx` signed by `key`.
pub fn signed<T>(tx: T, key: &SigningKey) -> Signed<T>
where
    T: SignableTransaction<Signature>,
{
    let (signature, recovery) = key
        .sign_prehash_recoverable(tx.signature_hash().as_slice())
        .expect("a 32-byte prehash signs");
    tx.into_signed(Signature::from((signature, recovery)))
}

fn sign<T>(tx: T, key: &SigningKey) -> TxEnvelope
where
    T: SignableTransaction<Signature>,
    TxEnvelope: From<Signed<T>>,
{
    signed(tx, key).into()
}

/// An EIP-1559 call from `key` (at `nonce`) to `to` with `input`.
pub(super) fn call(
    devnet: &Devnet,
    key: usize,
    nonce: u64,
    to: Address,
    gas: u64,
    input: Vec<u8>,
) -> TxEnvelope {
    let tx = TxEip1559 {
        chain_id: devnet.chain.chain_id,
        nonce,
        gas_limit: gas,
        max_fee_per_gas: 10 * GWEI,
        max_priority_fee_per_gas: GWEI,
        to: TxKind::Call(to),
        input: input.into(),
        ..Default::default()
    };
    sign(tx, &devnet.keys[key])
}

/// Token calldata: `to ‖ amount`.
fn transfer(to: Address, amount: U256) -> Vec<u8> {
    let mut data = B256::left_padding_from(to.as_slice()).to_vec();
    data.extend_from_slice(&B256::from(amount).0);
    data
}

fn word(n: u64) -> Vec<u8> {
    B256::from(U256::from(n)).to_vec()
}

fn eoa(devnet: &Devnet, i: usize) -> Address {
    address_of(&devnet.keys[i])
}

/// An address no genesis account has.
fn fresh(tag: &str) -> Address {
    Address::from_slice(&keccak256(tag)[12..])
}

/// A transaction's gas limit: `before` up to Osaka, `amsterdam` under Amsterdam, whose
/// EIP-8037 state gas (a new account 183,600, a new slot 97,920, 1,530 per deployed byte)
/// would leave the older limits short.
fn gas(devnet: &Devnet, before: u64, amsterdam: u64) -> u64 {
    match devnet.fork {
        super::Fork::Amsterdam => amsterdam,
        _ => before,
    }
}

/// The default block's transactions.
fn transactions(devnet: &Devnet) -> Vec<TxEnvelope> {
    let chain_id = devnet.chain.chain_id;
    let legacy = TxLegacy {
        chain_id: Some(chain_id),
        nonce: 0,
        gas_price: 2 * GWEI,
        gas_limit: 21_000,
        to: TxKind::Call(eoa(devnet, 1)),
        value: U256::from(10u64).pow(U256::from(18)),
        input: Bytes::new(),
    };
    let access_list = AccessList(vec![AccessListItem {
        address: TOKEN,
        storage_keys: vec![balance_slot(eoa(devnet, 1)).into()],
    }]);
    let eip2930 = TxEip2930 {
        chain_id,
        nonce: 0,
        gas_price: 2 * GWEI,
        gas_limit: gas(devnet, 30_000, 300_000),
        to: TxKind::Call(fresh("devnet recipient")),
        value: U256::from(5u64) * U256::from(10u64).pow(U256::from(17)),
        access_list,
        input: Bytes::new(),
    };
    let create = TxEip1559 {
        chain_id,
        nonce: 0,
        gas_limit: gas(devnet, 200_000, 2_000_000),
        max_fee_per_gas: 10 * GWEI,
        max_priority_fee_per_gas: GWEI,
        to: TxKind::Create,
        input: asm::deployer(&asm::hasher()),
        ..Default::default()
    };
    vec![
        sign(legacy, &devnet.keys[0]),
        sign(eip2930, &devnet.keys[1]),
        call(
            devnet,
            2,
            0,
            TOKEN,
            100_000,
            transfer(eoa(devnet, 3), U256::from(1_000)),
        ),
        call(
            devnet,
            3,
            0,
            TOKEN,
            100_000,
            transfer(eoa(devnet, 4), U256::from(7)),
        ),
        call(
            devnet,
            4,
            0,
            TOKEN,
            gas(devnet, 100_000, 300_000),
            transfer(fresh("devnet token holder"), U256::from(5)),
        ),
        call(
            devnet,
            5,
            0,
            FACTORY,
            gas(devnet, 200_000, 2_000_000),
            word(1),
        ),
        call(
            devnet,
            5,
            1,
            FACTORY,
            gas(devnet, 200_000, 2_000_000),
            word(2),
        ),
        call(
            devnet,
            6,
            0,
            HASHER,
            gas(devnet, 2_000_000, 10_000_000),
            word(64),
        ),
        sign(create, &devnet.keys[7]),
        // More than EOA 2 holds: the token reverts, the transaction still pays for its gas.
        call(
            devnet,
            2,
            1,
            TOKEN,
            100_000,
            transfer(eoa(devnet, 0), U256::MAX),
        ),
    ]
}

fn withdrawals(devnet: &Devnet) -> Vec<Withdrawal> {
    vec![
        Withdrawal {
            index: 0,
            validator_index: 7,
            address: eoa(devnet, 0),
            amount: 32_000_000_000,
        },
        Withdrawal {
            index: 1,
            validator_index: 8,
            address: fresh("devnet withdrawal"),
            amount: 1_000_000,
        },
    ]
}

/// Executes `transactions` and `withdrawals` as block 1 on the genesis and seals the header.
pub(super) fn seal(
    devnet: &Devnet,
    id: &str,
    description: &str,
    transactions: Vec<TxEnvelope>,
    withdrawals: Vec<Withdrawal>,
) -> Result<Generated, GenError> {
    let invalid = |source: ValidationError| GenError::Invalid {
        id: id.to_owned(),
        source: Box::new(source),
    };
    let senders: Vec<Address> = recover_senders(&transactions)
        .map_err(invalid)?
        .iter()
        .map(|tx| tx.signer())
        .collect();
    let (block, succeeded) =
        seal_as(devnet, transactions, withdrawals, &senders).map_err(invalid)?;
    let block_rlp = alloy_rlp::encode(&block);
    let witness = &devnet.witness;
    // The generator's block must pass the validator it is made for.
    let output = program::validate_block(&block_rlp, witness, &devnet.chain).map_err(invalid)?;
    Ok(Generated {
        id: id.to_owned(),
        description: description.to_owned(),
        withdrawals: block.body.withdrawals.as_ref().map_or(0, |w| w.len()),
        block_rlp,
        witness: witness.clone(),
        output,
        succeeded,
    })
}

/// Block 1 on the genesis holding `transactions` and `withdrawals`, its header sealed with the
/// results of executing transaction `i` as sent by `senders[i]` (whatever its signature
/// recovers), and per transaction whether it succeeded. With the recovered senders this is the
/// valid block; with others it is a block whose roots are those of a forged sender, what a
/// prover who could choose senders would claim (the tests build such blocks).
pub fn seal_as(
    devnet: &Devnet,
    transactions: Vec<TxEnvelope>,
    withdrawals: Vec<Withdrawal>,
    senders: &[Address],
) -> Result<(Block<TxEnvelope>, Vec<bool>), ValidationError> {
    seal_as_listed(devnet, transactions, withdrawals, senders)
        .map(|(block, succeeded, _)| (block, succeeded))
}

/// [`seal_as`], with the EIP-7928 block access list execution built (Amsterdam on; `None`
/// before), which a standard input's payload carries.
pub fn seal_as_listed(
    devnet: &Devnet,
    transactions: Vec<TxEnvelope>,
    withdrawals: Vec<Withdrawal>,
    senders: &[Address],
) -> Result<SealedAs, ValidationError> {
    let parent = &devnet.header;
    let chain = &devnet.chain;
    let timestamp = parent.timestamp + 12;
    let blob_params = chain
        .blob_params_at(timestamp)
        .expect("Osaka has blob parameters");
    let header = Header {
        parent_hash: parent.hash_slow(),
        ommers_hash: EMPTY_OMMER_ROOT_HASH,
        beneficiary: COINBASE,
        transactions_root: proofs::calculate_transaction_root(&transactions),
        number: parent.number + 1,
        gas_limit: parent.gas_limit,
        timestamp,
        extra_data: parent.extra_data.clone(),
        mix_hash: keccak256("devnet prevrandao 1"),
        base_fee_per_gas: parent.next_block_base_fee(BaseFeeParams::ethereum()),
        withdrawals_root: Some(proofs::calculate_withdrawals_root(&withdrawals)),
        blob_gas_used: Some(0),
        excess_blob_gas: parent.next_block_excess_blob_gas(blob_params),
        parent_beacon_block_root: Some(keccak256("devnet beacon root 1")),
        // Amsterdam: the slot SLOTNUM reads (the access list's hash is execution's, below).
        slot_number: chain
            .is_amsterdam_active_at_timestamp(timestamp)
            .then_some(1),
        ..Default::default()
    };
    let mut block = Block {
        header,
        body: BlockBody {
            transactions,
            ommers: Vec::new(),
            withdrawals: Some(withdrawals.into()),
        },
    };

    let witness = &devnet.witness;
    let senders: Vec<Recovered<&TxEnvelope>> = block
        .body
        .transactions
        .iter()
        .zip(senders)
        .map(|(tx, sender)| Recovered::new_unchecked(tx, *sender))
        .collect();
    let (_, block_hashes) = decode_ancestors(&witness.headers)?;
    let store = witness.store();
    let state = open_pre_state(&store, parent.state_root)?;
    let mut db = WitnessDb::new(state, &store, block_hashes);
    let program::execute::Executed {
        result,
        bundle,
        access_list,
    } = execute(&block, &senders, chain, &mut db)?;
    drop(senders);
    apply_bundle(&mut db.state, &bundle).map_err(ValidationError::StateUpdate)?;
    let header = &mut block.header;
    header.state_root = db.state.root().map_err(ValidationError::StateUpdate)?;
    header.gas_used = result.gas_used;
    header.blob_gas_used = Some(result.blob_gas_used);
    header.receipts_root = proofs::calculate_receipt_root(&result.receipts);
    header.logs_bloom = result
        .receipts
        .iter()
        .fold(Bloom::ZERO, |acc, r| acc | r.bloom());
    header.requests_hash = Some(result.requests.requests_hash());
    // Amsterdam: the list execution built (its header fields set by the caller's template).
    header.block_access_list_hash = access_list.as_deref().map(program::access_list::hash);
    let succeeded = result.receipts.iter().map(|r| r.status()).collect();
    Ok((block, succeeded, access_list))
}

/// What [`seal_as_listed`] gives: the block, whether each transaction succeeded, and the block
/// access list (Amsterdam on).
pub type SealedAs = (
    Block<TxEnvelope>,
    Vec<bool>,
    Option<alloy_eips::eip7928::BlockAccessList>,
);

/// `devnet`: the default block of `host run`.
pub fn default_block(devnet: &Devnet) -> Result<Generated, GenError> {
    seal(
        devnet,
        devnet.fork.devnet_id(),
        "10 transactions (legacy, EIP-2930, EIP-1559): ETH transfers, token transfers into \
         keccak-addressed mapping slots, two CREATE2 deployments, a CREATE deployment, a \
         64-step KECCAK256 chain writing 64 slots, a reverting transfer; 2 withdrawals",
        transactions(devnet),
        withdrawals(devnet),
    )
}

/// `devnet-small`: withdrawals only; proves in one segment on a CPU.
pub fn small_block(devnet: &Devnet) -> Result<Generated, GenError> {
    seal(
        devnet,
        &format!("{}-small", devnet.fork.devnet_id()),
        "no transactions, 2 withdrawals, the Prague/Osaka system calls: small enough to prove \
         in one segment on a CPU",
        Vec::new(),
        withdrawals(devnet),
    )
}
