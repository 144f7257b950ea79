//! alloy's signature-recovery hook: with [`install`], every transaction sender and EIP-7702
//! authority alloy recovers goes through [`recover_address`] on the VM's chips.

use alloc::sync::Arc;

use alloy_consensus::crypto::backend::{install_default_provider, CryptoProvider};
use alloy_consensus::crypto::RecoveryError as AlloyRecoveryError;
use alloy_primitives::{keccak256, Address};

use crate::secp256k1::{recover_address, verify};

/// secp256k1 on OpenVM's extensions, as alloy's crypto provider.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenVmSecp256k1;

impl CryptoProvider for OpenVmSecp256k1 {
    fn recover_signer_unchecked(
        &self,
        sig: &[u8; 65],
        msg: &[u8; 32],
    ) -> Result<Address, AlloyRecoveryError> {
        let rs: &[u8; 64] = sig[..64].try_into().expect("65 bytes");
        recover_address(rs, sig[64], msg).map_err(|_| AlloyRecoveryError::new())
    }

    fn verify_and_compute_signer_unchecked(
        &self,
        pubkey: &[u8; 65],
        sig: &[u8; 64],
        msg: &[u8; 32],
    ) -> Result<Address, AlloyRecoveryError> {
        let xy: &[u8; 64] = pubkey[1..].try_into().expect("65 bytes");
        if pubkey[0] != 0x04 || !verify(xy, sig, msg) {
            return Err(AlloyRecoveryError::new());
        }
        Ok(Address::from_slice(&keccak256(xy)[12..]))
    }
}

/// Makes [`OpenVmSecp256k1`] alloy's provider; false when one was installed already.
pub fn install() -> bool {
    install_default_provider(Arc::new(OpenVmSecp256k1)).is_ok()
}
