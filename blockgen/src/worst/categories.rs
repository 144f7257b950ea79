//! The worst-case categories that are not precompiles: the opcodes', memory's, calldata's,
//! state's and code's ([`super::precompiles`] has the precompiles').

use alloy_primitives::{address, Address, Bytes};

use super::builders::{
    calldata, counted, grow, on_counter, plain, state_accounts, storage, ON_COUNTER_GAS,
};
use super::category::Category;
use super::code::{call, call_pushes, create2, extcodecopy, extcodesize};
use super::pricing::{Pricing, MAX_CODE_EIP170, MAX_CODE_EIP7954};
use super::{account, ACCOUNTS};
use crate::asm::{
    Asm, ADD, ADDRESS, BALANCE, BLOCKHASH, CALL, DUP1, DUP2, EXTCODEHASH, EXTCODESIZE, GAS, ISZERO,
    JUMPI, LOG0, LOG4, MLOAD, MSIZE, MSTORE, NUMBER, POP, PUSH1, SELFBALANCE, SELFDESTRUCT, SHA3,
    SLOAD, SSTORE, SUB,
};

/// The contract the SELFDESTRUCT category calls.
const DESTRUCTOR: Address = address!("5eed0000000000000000000000000000000000d1");

/// The categories that are not precompiles.
pub(super) const OTHERS: &[Category] = &[
    Category {
        name: "keccak-32",
        group: "opcode",
        about: "KECCAK256 of 32 bytes",
        build: |_, gas| {
            let body = |a: &mut Asm| {
                a.push(32).push(0).ops(&[SHA3, POP]);
            };
            plain("keccak-32", gas, &body, (3 + 3 + 36 + 2, 16, true), &|_| {})
        },
    },
    Category {
        name: "address",
        group: "opcode",
        about: "ADDRESS: a 20-byte context read onto the stack (the suite's dearest cheap opcode)",
        build: |_, gas| {
            let body = |a: &mut Asm| {
                a.ops(&[ADDRESS, POP]);
            };
            plain("address", gas, &body, (2 + 2, 64, true), &|_| {})
        },
    },
    Category {
        name: "selfbalance",
        group: "opcode",
        about: "SELFBALANCE: the executing contract's balance, a 5-gas read of a warm account",
        build: |fork, gas| {
            let body = |a: &mut Asm| {
                a.ops(&[SELFBALANCE, POP]);
            };
            let cost = Pricing::of(fork).static_gas(SELFBALANCE) + 2;
            plain("selfbalance", gas, &body, (cost, 64, true), &|_| {})
        },
    },
    Category {
        name: "balance-warm",
        group: "opcode",
        about: "BALANCE of the executing contract: a warm account read at the warm price",
        build: |fork, gas| {
            let body = |a: &mut Asm| {
                a.ops(&[ADDRESS, BALANCE, POP]);
            };
            let cost = 2 + Pricing::of(fork).static_gas(BALANCE) + 2;
            plain("balance-warm", gas, &body, (cost, 64, true), &|_| {})
        },
    },
    Category {
        name: "extcodehash-warm",
        group: "opcode",
        about: "EXTCODEHASH of the executing contract: a warm account read at the warm price",
        build: |fork, gas| {
            let body = |a: &mut Asm| {
                a.ops(&[ADDRESS, EXTCODEHASH, POP]);
            };
            let cost = 2 + Pricing::of(fork).static_gas(EXTCODEHASH) + 2;
            plain("extcodehash-warm", gas, &body, (cost, 64, true), &|_| {})
        },
    },
    Category {
        name: "extcodesize-warm",
        group: "opcode",
        about: "EXTCODESIZE of the executing contract: a warm account read at the warm price",
        build: |fork, gas| {
            let body = |a: &mut Asm| {
                a.ops(&[ADDRESS, EXTCODESIZE, POP]);
            };
            let cost = 2 + Pricing::of(fork).static_gas(EXTCODESIZE) + 2;
            plain("extcodesize-warm", gas, &body, (cost, 64, true), &|_| {})
        },
    },
    Category {
        name: "keccak-16k",
        group: "opcode",
        about: "KECCAK256 of 16 KiB",
        build: |_, gas| {
            let body = |a: &mut Asm| {
                a.push(16_384).push(0).ops(&[SHA3, POP]);
            };
            let cost = 3 + 3 + 30 + 6 * 512 + 2;
            plain("keccak-16k", gas, &body, (cost, 1, true), &grow(16_383))
        },
    },
    Category {
        name: "memory",
        group: "memory/calldata",
        about: "memory expansion, 1 KiB a step, until the transaction runs out of gas",
        build: |_, gas| {
            let body = |a: &mut Asm| {
                a.ops(&[MSIZE]).push(1024).ops(&[ADD, MLOAD, POP]);
            };
            plain("memory", gas, &body, (1_000, 4, false), &|_| {})
        },
    },
    Category {
        name: "calldata-zero",
        group: "memory/calldata",
        about: "calldata of zero bytes, as much as the gas buys (the calldata floor: EIP-7623's 10 gas a byte, EIP-7976's 64)",
        build: |fork, gas| calldata(fork, gas, 0),
    },
    Category {
        name: "calldata-nonzero",
        group: "memory/calldata",
        about: "calldata of 0xff bytes, as much as the gas buys (the calldata floor: EIP-7623's 40 gas a byte, EIP-7976's 64)",
        build: |fork, gas| calldata(fork, gas, 0xff),
    },
    Category {
        name: "sload-cold",
        group: "state",
        about: "cold SLOAD of distinct existing slots",
        build: |fork, gas| {
            let body_gas = Pricing::of(fork).cold_sload() + ON_COUNTER_GAS;
            storage("sload-cold", gas, &on_counter(&[SLOAD, POP]), body_gas)
        },
    },
    Category {
        name: "sstore-cold",
        group: "state",
        about: "cold SSTORE changing distinct existing slots (1 to 2)",
        build: |fork, gas| {
            let body = |a: &mut Asm| {
                a.push(2).ops(&[DUP2, SSTORE]).push(1).ops(&[ADD]);
            };
            // PUSH1, DUP2, the store, PUSH1, ADD.
            let body_gas = Pricing::of(fork).cold_sstore_reset() + 3 * 4;
            storage("sstore-cold", gas, &body, body_gas)
        },
    },
    Category {
        name: "sstore-warm",
        group: "state",
        about: "warm SSTORE of a new value into a slot the transaction already changed",
        build: |fork, gas| {
            // The counter (from 2) is the value; slot 0 is made dirty, cold, before the loop.
            let setup = |a: &mut Asm| {
                a.push(2).push(1).push(0).ops(&[SSTORE]);
            };
            let body = |a: &mut Asm| {
                a.ops(&[DUP1]).push(0).ops(&[SSTORE]).push(1).ops(&[ADD]);
            };
            // DUP1, PUSH1, the store, PUSH1, ADD.
            let body_gas = Pricing::of(fork).warm_sstore_dirty() + 3 * 4;
            plain("sstore-warm", gas, &body, (body_gas, 32, true), &setup)
        },
    },
    Category {
        name: "balance-cold",
        group: "state",
        about: "cold BALANCE of distinct existing accounts",
        build: |fork, gas| {
            state_accounts(("balance-cold", fork), gas, &[BALANCE, POP], |_| {
                Bytes::new()
            })
        },
    },
    Category {
        name: "extcodehash-cold",
        group: "state",
        about: "cold EXTCODEHASH of distinct existing accounts",
        build: |fork, gas| {
            state_accounts(("extcodehash-cold", fork), gas, &[EXTCODEHASH, POP], |_| {
                Bytes::new()
            })
        },
    },
    Category {
        name: "extcodesize-24k",
        group: "code",
        about: "cold EXTCODESIZE of distinct 24 KiB contracts (each code loaded, hashed, analysed)",
        build: |fork, gas| extcodesize(("extcodesize-24k", fork), gas, MAX_CODE_EIP170),
    },
    Category {
        name: "extcodecopy-24k",
        group: "code",
        about: "cold EXTCODECOPY of all of distinct 24 KiB contracts",
        build: |fork, gas| extcodecopy(("extcodecopy-24k", fork), gas, MAX_CODE_EIP170),
    },
    Category {
        name: "call-24k",
        group: "code",
        about: "cold CALL of distinct 24 KiB contracts that jump at once (each code hashed and analysed)",
        build: |fork, gas| call(("call-24k", fork), gas, MAX_CODE_EIP170),
    },
    Category {
        name: "create2-48k",
        group: "code",
        about:
            "CREATE2 with 48 KiB initcode (EIP-3860's bound; analysed and hashed), empty runtime",
        build: |fork, gas| create2(("create2-48k", fork), gas, 2 * MAX_CODE_EIP170),
    },
    Category {
        name: "extcodesize-64k",
        group: "code",
        about: "cold EXTCODESIZE of distinct 64 KiB contracts (EIP-7954, from Amsterdam)",
        build: |fork, gas| extcodesize(("extcodesize-64k", fork), gas, MAX_CODE_EIP7954),
    },
    Category {
        name: "extcodecopy-64k",
        group: "code",
        about: "cold EXTCODECOPY of all of distinct 64 KiB contracts (EIP-7954, from Amsterdam)",
        build: |fork, gas| extcodecopy(("extcodecopy-64k", fork), gas, MAX_CODE_EIP7954),
    },
    Category {
        name: "call-64k",
        group: "code",
        about: "cold CALL of distinct 64 KiB contracts that jump at once (EIP-7954, from Amsterdam)",
        build: |fork, gas| call(("call-64k", fork), gas, MAX_CODE_EIP7954),
    },
    Category {
        name: "call-64k-pushes",
        group: "code",
        about: "cold CALL of distinct 64 KiB contracts of PUSH1 0x5b JUMPDEST that jump at once (EIP-7954, from Amsterdam)",
        build: |fork, gas| call_pushes(("call-64k-pushes", fork), gas, MAX_CODE_EIP7954),
    },
    Category {
        name: "create2-128k",
        group: "code",
        about: "CREATE2 with 128 KiB initcode (EIP-7954's bound, from Amsterdam), empty runtime",
        build: |fork, gas| create2(("create2-128k", fork), gas, 2 * MAX_CODE_EIP7954),
    },
    Category {
        name: "log4",
        group: "other",
        about: "LOG4 with no data",
        build: |_, gas| {
            let body = |a: &mut Asm| {
                a.push(0).ops(&[DUP1, DUP1, DUP1, DUP1, DUP1, LOG4]);
            };
            plain("log4", gas, &body, (3 + 15 + 375 * 5, 8, true), &|_| {})
        },
    },
    Category {
        name: "log0-1k",
        group: "other",
        about: "LOG0 with 1 KiB of data",
        build: |_, gas| {
            let body = |a: &mut Asm| {
                a.push(1024).push(0).ops(&[LOG0]);
            };
            plain(
                "log0-1k",
                gas,
                &body,
                (6 + 375 + 8 * 1024, 4, true),
                &grow(1023),
            )
        },
    },
    Category {
        name: "selfdestruct",
        group: "other",
        about: "calls to a contract that SELFDESTRUCTs to a distinct cold, absent beneficiary",
        build: |_, gas| {
            let body = |a: &mut Asm| {
                a.ops(&[DUP1]).push(0).ops(&[MSTORE]);
                a.push(0).push(0).push(32).push(0).push(0);
                a.push_address(DESTRUCTOR).push(10_000).ops(&[CALL, ISZERO]);
                a.push_label("fail").ops(&[JUMPI]).push(1).ops(&[ADD]);
            };
            let (mut workload, _) =
                counted(("selfdestruct", ACCOUNTS), gas, &body, (10_200, 2), &|_| {})?;
            let code = vec![PUSH1, 0, crate::asm::CALLDATALOAD, SELFDESTRUCT];
            workload
                .accounts
                .insert(DESTRUCTOR, account(0, code.into()));
            Ok(workload)
        },
    },
    Category {
        name: "blockhash",
        group: "other",
        about: "BLOCKHASH of the parent",
        build: |_, gas| {
            let body = |a: &mut Asm| {
                a.push(1).ops(&[NUMBER, SUB, BLOCKHASH, POP]);
            };
            plain("blockhash", gas, &body, (30, 32, true), &|_| {})
        },
    },
    Category {
        name: "call-recursion",
        group: "other",
        about: "a contract calling itself with all its gas, at every depth, to depth 1,024",
        build: |_, gas| {
            let body = |a: &mut Asm| {
                a.push(0).ops(&[DUP1, DUP1, DUP1, DUP1, ADDRESS]);
                a.ops(&[GAS, CALL, POP]);
            };
            plain("call-recursion", gas, &body, (1_000, 1, true), &|_| {})
        },
    },
];
