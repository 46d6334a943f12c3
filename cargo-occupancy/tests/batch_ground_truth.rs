//! `cargo occupancy batch` as a user runs it, on the recorded ground truth: every header
//! vector and every recorded H200 driver answer, converted to batch rows.

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;

mod common;
use common::batch;

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data")
        .join(rel)
}

fn columns(line: &str) -> Vec<&str> {
    line.split('\t').collect()
}

#[test]
fn header_vectors_agree_through_batch() {
    let text = std::fs::read_to_string(data("header-vectors.tsv")).unwrap();
    let out = batch(text.clone());
    let header = columns(text.lines().next().unwrap());
    let expected_col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    // The input already has `blocks_per_sm` and `limiters` (the header's answers): the
    // engine's columns are then named `engine_*`, the others as usual.
    let out_header = columns(out.lines().next().unwrap());
    assert_eq!(out_header[..header.len()], header[..]);
    assert_eq!(
        out_header[header.len()..],
        [
            "engine_blocks_per_sm",
            "warps_per_sm",
            "occupancy",
            "engine_limiters",
            "error"
        ]
    );
    let (mut n, mut wrong) = (0, Vec::new());
    for (input, output) in text.lines().skip(1).zip(out.lines().skip(1)) {
        let (i, o) = (columns(input), columns(output));
        n += 1;
        // The output repeats the input, so its `blocks_per_sm` / `limiters` input columns
        // come first; ours are the last five.
        let ours = &o[o.len() - 5..];
        let expected = (
            i[expected_col("blocks_per_sm")],
            i[expected_col("limiters")],
        );
        if (ours[0], ours[3], ours[4]) != (expected.0, expected.1, "") {
            wrong.push(format!("{input}\n  -> {ours:?}"));
        }
    }
    assert_eq!(n, 4400);
    assert!(
        wrong.is_empty(),
        "{} of {n} disagree: {:#?}",
        wrong.len(),
        &wrong[..wrong.len().min(5)]
    );
}

#[test]
fn every_h200_driver_answer_agrees_through_batch() {
    let kernels: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data("h200/kernels.json")).unwrap()).unwrap();
    let mut gz = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(data("h200/occupancy.tsv.gz")).unwrap())
        .read_to_string(&mut gz)
        .unwrap();
    const ALPHABET: &str = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut input = String::from(
        "arch\tblock_size\tregisters_per_thread\tstatic_smem\tdynamic_smem\tmax_dynamic_smem\tcarveout\tbarriers\tmax_threads_per_block\n",
    );
    let mut expected = Vec::new();
    let mut barriers: HashMap<&str, u32> = HashMap::new();
    for line in gz.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let c = columns(line);
        let k = &kernels[c[0]];
        let b = *barriers.entry(c[0]).or_insert_with(|| {
            c[0].split('_')
                .find_map(|p| p.strip_prefix('b'))
                .unwrap()
                .parse()
                .unwrap()
        });
        for (i, answer) in c[4].chars().enumerate() {
            input.push_str(&format!(
                "sm_90\t{}\t{}\t{}\t{}\t{}\t{}\t{b}\t{}\n",
                i + 1,
                k["num_regs"],
                k["shared_size_bytes"],
                c[3],
                c[2],
                c[1],
                k["max_threads_per_block"]
            ));
            expected.push(ALPHABET.find(answer).unwrap().to_string());
        }
    }
    let out = batch(input);
    let got: Vec<&str> = out.lines().skip(1).map(|l| columns(l)[9]).collect();
    assert_eq!(got.len(), 3_555_328);
    let wrong = got
        .iter()
        .zip(&expected)
        .filter(|(g, e)| **g != e.as_str())
        .count();
    assert_eq!(wrong, 0, "{wrong} of {} rows disagree", got.len());
}
