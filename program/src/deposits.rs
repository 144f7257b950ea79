//! EIP-6110: every deposit event must have the deposit contract's exact layout.
//!
//! The execution specs (`extract_deposit_data`, Prague on) read a `DepositEvent` log of the
//! deposit contract as fixed words, not as ABI: its data must be 576 bytes, its five offsets
//! exactly 160, 256, 320, 384 and 512, and the lengths they point to exactly 48, 32, 8, 96 and 8;
//! any other layout makes the block invalid. alloy-evm decodes the event as ABI, which accepts
//! other offsets, padding and trailing bytes and so takes blocks the specs refuse (EEST's
//! `invalid_layout` cases; before this check they were refused only by the requests hash, and a
//! header hashing alloy's reading would have been valid). This module makes the specs' check on
//! the receipts before the requests are read, and names the log and the word that breaks it.

use alloy_consensus::TxReceipt;
use alloy_primitives::{Address, Log, B256, U256};

/// `keccak256("DepositEvent(bytes,bytes,bytes,bytes,bytes)")`.
pub const DEPOSIT_EVENT_SIGNATURE_HASH: B256 =
    alloy_primitives::b256!("649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5");

/// The length of a deposit event's data.
pub const DEPOSIT_EVENT_LENGTH: usize = 576;

/// The fields, in order: name, offset word's required value, length word's required value.
const FIELDS: [(&str, usize, usize); 5] = [
    ("pubkey", 160, 48),
    ("withdrawal_credentials", 256, 32),
    ("amount", 320, 8),
    ("signature", 384, 96),
    ("index", 512, 8),
];

/// How a deposit event breaks the layout.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DepositLayoutError {
    /// The data is not 576 bytes.
    #[error("its data is {0} bytes, not {DEPOSIT_EVENT_LENGTH}")]
    Length(usize),
    /// A field's offset word is not the contract's.
    #[error("the {field} offset is {got}, not {expected}")]
    Offset {
        /// The field.
        field: &'static str,
        /// The required offset.
        expected: usize,
        /// The word found.
        got: U256,
    },
    /// A field's length word is not the contract's.
    #[error("the {field} length is {got}, not {expected}")]
    Size {
        /// The field.
        field: &'static str,
        /// The required length.
        expected: usize,
        /// The word found.
        got: U256,
    },
}

/// Checks one deposit event's data.
pub fn check_layout(data: &[u8]) -> Result<(), DepositLayoutError> {
    if data.len() != DEPOSIT_EVENT_LENGTH {
        return Err(DepositLayoutError::Length(data.len()));
    }
    let word = |at: usize| U256::from_be_slice(&data[at..at + 32]);
    for (k, (field, offset, size)) in FIELDS.into_iter().enumerate() {
        let got = word(32 * k);
        if got != U256::from(offset) {
            return Err(DepositLayoutError::Offset {
                field,
                expected: offset,
                got,
            });
        }
        let got = word(offset);
        if got != U256::from(size) {
            return Err(DepositLayoutError::Size {
                field,
                expected: size,
                got,
            });
        }
    }
    Ok(())
}

/// Checks every deposit event (a log of `contract` whose first topic is the event's signature)
/// of `receipts`; the first that breaks the layout, with its transaction's index and its
/// index among that transaction's logs.
pub fn check_layouts<R: TxReceipt<Log = Log>>(
    contract: Address,
    receipts: &[R],
) -> Result<(), (usize, usize, DepositLayoutError)> {
    for (tx, receipt) in receipts.iter().enumerate() {
        for (index, log) in receipt.logs().iter().enumerate() {
            if log.address == contract
                && log.topics().first() == Some(&DEPOSIT_EVENT_SIGNATURE_HASH)
            {
                check_layout(&log.data.data).map_err(|e| (tx, index, e))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::keccak256;

    /// A deposit event as the contract emits it.
    fn event() -> alloc::vec::Vec<u8> {
        let mut data = alloc::vec![0u8; DEPOSIT_EVENT_LENGTH];
        for (k, (_, offset, size)) in FIELDS.into_iter().enumerate() {
            data[32 * k..32 * k + 32].copy_from_slice(&U256::from(offset).to_be_bytes::<32>());
            data[offset..offset + 32].copy_from_slice(&U256::from(size).to_be_bytes::<32>());
            for (i, b) in data[offset + 32..offset + 32 + size].iter_mut().enumerate() {
                *b = (k * 31 + i) as u8 | 1;
            }
        }
        data
    }

    #[test]
    fn the_signature_hash_is_the_events() {
        assert_eq!(
            keccak256("DepositEvent(bytes,bytes,bytes,bytes,bytes)"),
            DEPOSIT_EVENT_SIGNATURE_HASH
        );
    }

    #[test]
    fn only_the_contracts_exact_layout_is_accepted() {
        assert_eq!(check_layout(&event()), Ok(()));
        let mut longer = event();
        longer.extend_from_slice(&[0; 32]);
        assert_eq!(check_layout(&longer), Err(DepositLayoutError::Length(608)));
        assert_eq!(
            check_layout(&event()[..575]),
            Err(DepositLayoutError::Length(575))
        );
        // Each offset and each length one off, and a high byte set in a word whose low bytes
        // are right (a reading of the low eight bytes alone would take it).
        for (k, (field, offset, size)) in FIELDS.into_iter().enumerate() {
            let mut bad = event();
            bad[32 * k + 31] ^= 1;
            assert_eq!(
                check_layout(&bad),
                Err(DepositLayoutError::Offset {
                    field,
                    expected: offset,
                    got: U256::from(offset ^ 1)
                })
            );
            let mut bad = event();
            bad[offset] = 1;
            assert!(
                matches!(check_layout(&bad), Err(DepositLayoutError::Size { field: f, .. }) if f == field)
            );
            let mut bad = event();
            bad[offset + 31] = (size + 1) as u8;
            assert!(matches!(
                check_layout(&bad),
                Err(DepositLayoutError::Size { .. })
            ));
        }
    }
}
