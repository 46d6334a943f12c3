//! Candidates for a launch's run-time block and dynamic shared memory: which the user's
//! lists or pairs fill in, decided once for the Rust attribute, the CUDA C++ comment and
//! `occupancy.toml`'s `[launches.<function>]`.
//!
//! A launch the code leaves to run time takes candidates: `block = [32, 1024]`,
//! `smem = [0, 4096]`, or pairs chosen together, `launches = [(32, 128), (1024, 4096)]`.
//! The rule: **candidates are never crossed**. Two lists of several values each, for a
//! launch whose block and shared memory are both known only at run time, would check every
//! block with every size, pairs the code may never launch (32 threads with 64 KiB); that is
//! a [`Refusal::Crossed`], whose message says how to give pairs. A list of one value, or a
//! launch that leaves only one of the two to run time, crosses nothing. Pairs fill both
//! values together; where the code states one of them, the pairs that agree with it give
//! the other, and none agreeing is a [`Refusal::NoPair`].
//!
//! ```
//! use occupancy_core::candidates::{fill, Filled, Given, Refusal};
//!
//! let pairs = [([32, 1, 1], 128), ([1024, 1, 1], 4096)];
//! let given = Given { block: &[], smem: &[], pairs: &pairs };
//! // Both values at run time: one launch per pair, never (32, 4096).
//! assert_eq!(
//!     fill(&given, None, None),
//!     Ok(vec![Filled::pair(0), Filled::pair(1)])
//! );
//! // The code states 4096 B: the pair that agrees gives the block.
//! assert_eq!(fill(&given, None, Some(&4096)), Ok(vec![Filled { block: Some(1), smem: None }]));
//!
//! let lists = Given { block: &[[32, 1, 1], [1024, 1, 1]], smem: &[128, 4096], pairs: &[] };
//! assert_eq!(fill(&lists, None, None), Err(Refusal::Crossed { blocks: 2, smems: 2 }));
//! ```

use std::fmt;

/// What the user gave for one launch: lists for the block and the dynamic shared memory,
/// or pairs of both (never both kinds: the attribute and the policy refuse that).
#[derive(Clone, Copy, Debug)]
pub struct Given<'a, B, S> {
    /// Block candidates (a shape, or what stands for one).
    pub block: &'a [B],
    /// Dynamic shared memory candidates, per block.
    pub smem: &'a [S],
    /// (block, dynamic shared memory) pairs, each a launch the user says the code makes.
    pub pairs: &'a [(B, S)],
}

/// One launch to check: the candidate that fills each value the code leaves to run time,
/// as an index into [`Given::block`] / [`Given::smem`], or into [`Given::pairs`] when
/// pairs were given; `None` where the code's own value stands (known, or still run time
/// when nothing was given for it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Filled {
    /// The block's candidate.
    pub block: Option<usize>,
    /// The dynamic shared memory's candidate.
    pub smem: Option<usize>,
}

impl Filled {
    /// Both values from pair `i`.
    pub fn pair(i: usize) -> Filled {
        Filled {
            block: Some(i),
            smem: Some(i),
        }
    }

    /// The code's own values: nothing filled.
    pub const CODE: Filled = Filled {
        block: None,
        smem: None,
    };
}

/// Why candidates cannot fill a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Both values at run time and several candidates for each: crossing them could check
    /// pairs the code never launches.
    Crossed {
        /// How many block candidates.
        blocks: usize,
        /// How many shared memory candidates.
        smems: usize,
    },
    /// The code states one value and no pair agrees with it.
    NoPair {
        /// The stated value is the block (else the shared memory).
        block_stated: bool,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Crossed { blocks, smems } => write!(
                f,
                "the block and the dynamic shared memory of this launch are both known only at \
                 run time, with {blocks} `block` and {smems} `smem` candidates: each block with \
                 each size would check pairs the code may never launch; give the pairs it \
                 launches with `launches` instead"
            ),
            Refusal::NoPair { block_stated } => {
                let (stated, other) = if *block_stated {
                    ("block", "shared memory")
                } else {
                    ("dynamic shared memory", "block")
                };
                write!(
                    f,
                    "no pair of `launches` has the {stated} this launch states, so none gives \
                     its {other}; add the pairs it launches"
                )
            }
        }
    }
}

impl std::error::Error for Refusal {}

/// The launches to check for one launch of the code: `block` / `smem` are the code's values
/// where it states them (`None`: known only at run time).
///
/// # Errors
///
/// [`Refusal::Crossed`] for two lists of several candidates each, both values at run time;
/// [`Refusal::NoPair`] when pairs were given, the code states one value and no pair has it.
pub fn fill<B: PartialEq, S: PartialEq>(
    given: &Given<'_, B, S>,
    block: Option<&B>,
    smem: Option<&S>,
) -> Result<Vec<Filled>, Refusal> {
    if !given.pairs.is_empty() {
        let pairs = given.pairs.iter().enumerate();
        let out: Vec<Filled> = match (block, smem) {
            (Some(_), Some(_)) => return Ok(vec![Filled::CODE]),
            (None, None) => pairs.map(|(i, _)| Filled::pair(i)).collect(),
            (Some(b), None) => pairs
                .filter(|(_, (pb, _))| pb == b)
                .map(|(i, _)| Filled {
                    block: None,
                    smem: Some(i),
                })
                .collect(),
            (None, Some(s)) => pairs
                .filter(|(_, (_, ps))| ps == s)
                .map(|(i, _)| Filled {
                    block: Some(i),
                    smem: None,
                })
                .collect(),
        };
        return if out.is_empty() {
            Err(Refusal::NoPair {
                block_stated: block.is_some(),
            })
        } else {
            Ok(out)
        };
    }
    let open = |stated: bool, n: usize| -> Vec<Option<usize>> {
        if stated || n == 0 {
            vec![None]
        } else {
            (0..n).map(Some).collect()
        }
    };
    let blocks = open(block.is_some(), given.block.len());
    let smems = open(smem.is_some(), given.smem.len());
    if blocks.len() > 1 && smems.len() > 1 {
        return Err(Refusal::Crossed {
            blocks: blocks.len(),
            smems: smems.len(),
        });
    }
    Ok(blocks
        .iter()
        .flat_map(|&b| smems.iter().map(move |&s| Filled { block: b, smem: s }))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const B32: [u32; 3] = [32, 1, 1];
    const B1K: [u32; 3] = [1024, 1, 1];

    fn lists<'a>(block: &'a [[u32; 3]], smem: &'a [u32]) -> Given<'a, [u32; 3], u32> {
        Given {
            block,
            smem,
            pairs: &[],
        }
    }

    #[test]
    fn one_value_at_run_time_takes_its_list() {
        let g = lists(&[B32, B1K], &[128, 4096, 65536]);
        // The code states the shared memory: the blocks fill, the smem list is not used.
        assert_eq!(
            fill(&g, None, Some(&0)),
            Ok(vec![
                Filled {
                    block: Some(0),
                    smem: None
                },
                Filled {
                    block: Some(1),
                    smem: None
                }
            ])
        );
        assert_eq!(
            fill(&g, Some(&B32), None).unwrap().len(),
            3,
            "three sizes for a stated block"
        );
        assert_eq!(fill(&g, Some(&B32), Some(&0)), Ok(vec![Filled::CODE]));
    }

    #[test]
    fn two_lists_of_several_are_refused_one_of_one_crosses_nothing() {
        let g = lists(&[B32, B1K], &[128, 4096, 65536]);
        assert_eq!(
            fill(&g, None, None),
            Err(Refusal::Crossed {
                blocks: 2,
                smems: 3
            })
        );
        let one = lists(&[B32, B1K], &[4096]);
        assert_eq!(
            fill(&one, None, None),
            Ok(vec![
                Filled {
                    block: Some(0),
                    smem: Some(0)
                },
                Filled {
                    block: Some(1),
                    smem: Some(0)
                }
            ])
        );
        // Nothing given for the shared memory: it stays the code's (run time).
        let none = lists(&[B32, B1K], &[]);
        assert_eq!(fill(&none, None, None).unwrap()[1].smem, None);
    }

    #[test]
    fn pairs_fill_together_and_agree_with_a_stated_value() {
        let pairs = [(B32, 128), (B1K, 4096), (B1K, 65536)];
        let g = Given {
            block: &[],
            smem: &[],
            pairs: &pairs,
        };
        assert_eq!(
            fill(&g, None, None),
            Ok(vec![Filled::pair(0), Filled::pair(1), Filled::pair(2)])
        );
        assert_eq!(
            fill(&g, Some(&B1K), None),
            Ok(vec![
                Filled {
                    block: None,
                    smem: Some(1)
                },
                Filled {
                    block: None,
                    smem: Some(2)
                }
            ])
        );
        assert_eq!(
            fill(&g, None, Some(&7)),
            Err(Refusal::NoPair {
                block_stated: false
            })
        );
        assert!(
            Refusal::NoPair { block_stated: true }
                .to_string()
                .starts_with("no pair of `launches` has the block this launch states")
        );
    }
}
