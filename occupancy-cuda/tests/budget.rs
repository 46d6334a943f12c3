//! The reader's work is bounded by design: what cannot launch is not followed, and what is
//! followed past the step budget ends with a note saying so (never a hang).

/// A body whose paths and loops cost more than the step budget: six independent
/// conditions make 64 paths, and each runs a 4096-step loop.
fn costly_body() -> String {
    let mut body = String::from("  float acc = 0.f;\n");
    for p in ["a", "b", "c", "d", "e", "f"] {
        body.push_str(&format!("  if ({p} > 1) {{ acc = 1.f; }}\n"));
    }
    // The counter outlives the loop (its value after it is read), so the loop is run.
    body.push_str("  int i = 0;\n  for (; i < 4096;) { i += 1; }\n");
    body
}

const KERNEL: &str = "__global__ void k(float* x, int n) {}\n";
const PARAMS: &str = "float* x, int n, int a, int b, int c, int d, int e, int f";

fn notes(r: &occupancy_cuda::Reading) -> Vec<String> {
    r.notes.iter().map(ToString::to_string).collect()
}

#[test]
fn a_device_helper_no_host_code_names_is_not_followed() {
    // A traits member's `__device__` function is named by no function, so it is a root;
    // it launches nothing, and following it used to spend the whole step budget.
    let src = format!(
        "{KERNEL}__device__ float helper({PARAMS}) {{\n{}  return acc;\n}}\n\
         extern \"C\" void run(float* x, int n) {{ k<<<n, 128>>>(x, n); }}\n",
        costly_body()
    );
    let r = occupancy_cuda::read_texts(&[("src/a.cu", &src)]);
    assert_eq!(notes(&r), Vec::<String>::new());
    assert_eq!(r.launches.len(), 1);
    let summaries: Vec<String> = r.launches[0].paths.iter().map(|p| p.summary()).collect();
    assert_eq!(summaries, ["k grid ? block 128 smem 0 B"]);
}

#[test]
fn a_host_launcher_past_the_step_budget_ends_with_a_note() {
    // The same body in a launcher is followed, up to the budget, and says where it stopped.
    // The file is over 32 KB (a long licence header), so the read may take more steps
    // than one root: the root's budget runs out first.
    let licence = format!("/*{}*/\n", " licence text.\n".repeat(2600));
    let src = format!(
        "{KERNEL}extern \"C\" void run({PARAMS}) {{\n{}  k<<<n, 128>>>(x, n);\n}}\n{licence}",
        costly_body()
    );
    let r = occupancy_cuda::read_texts(&[("src/a.cu", &src)]);
    assert_eq!(
        notes(&r),
        ["src/a.cu:2: `run`: more than 128000 steps of interpretation: the rest is not read"]
    );
    assert_eq!(r.launches.len(), 1);
    assert_eq!(r.launches[0].line, 12);
}

#[test]
fn a_small_file_is_read_within_a_budget_of_its_size() {
    // Without the licence: 16,000 steps for the whole read (4 per byte, at least
    // 16,000), spent in `run`; `after`, the next root, is then not read at all, and says
    // so.
    let src = format!(
        "{KERNEL}extern \"C\" void run({PARAMS}) {{\n{}  k<<<n, 128>>>(x, n);\n}}\n\
         extern \"C\" void after(float* x, int n) {{ k<<<n, 64>>>(x, n); }}\n",
        costly_body()
    );
    let r = occupancy_cuda::read_texts(&[("src/a.cu", &src)]);
    let spent = "the reader's budget for these files (16000 steps, 4 per byte of source, the \
                 parse of file-scope macro expansions included) is spent: the rest is not read";
    assert_eq!(
        notes(&r),
        [
            format!("src/a.cu:2: `run`: {spent}"),
            format!("src/a.cu:14: `after`: {spent}")
        ]
    );
    let lines: Vec<u32> = r.launches.iter().map(|l| l.line).collect();
    assert_eq!(lines, [12, 14]);
}

#[test]
fn a_loop_whose_counter_reaches_only_kernel_arguments_is_read_once_where_it_runs() {
    // `step` reaches only the kernel's arguments: the loop is read once, on the paths
    // where it runs at all (not where `pad` is 1). Where the counter is the block, the
    // loop runs value by value: a block per iteration.
    let src = format!(
        "{KERNEL}extern \"C\" void run(float* x, int n) {{\n\
         \x20 int pad = n < 2 ? 1 : 64;\n\
         \x20 for (int step = 2; step <= pad; step <<= 1) {{ k<<<1, pad>>>(x, step); }}\n\
         \x20 for (int step = 2; step <= pad; step <<= 1) {{ k<<<1, step>>>(x, n); }}\n\
         }}\n"
    );
    let r = occupancy_cuda::read_texts(&[("src/a.cu", &src)]);
    assert_eq!(notes(&r), Vec::<String>::new());
    let got: Vec<(u32, Vec<String>)> = r
        .launches
        .iter()
        .map(|l| (l.line, l.paths.iter().map(|p| p.summary()).collect()))
        .collect();
    let block = |b: u32| format!("k grid 1 block {b} smem 0 B [pad = 64]");
    assert_eq!(
        got,
        [
            (4, vec![block(64)]),
            (5, [2, 4, 8, 16, 32, 64].map(block).to_vec())
        ]
    );
}

#[test]
fn roots_that_reach_a_launch_only_through_names_are_followed() {
    // Through a function, a function-like macro, and a macro that pastes the callee's name
    // (`launch_f32`, which no text names, is also a root of its own: block unknown).
    let src = format!(
        "{KERNEL}#define LAUNCH(t) k<<<n, t>>>(x, n)\n\
         #define RUN(name, t) launch_##name(x, n, t)\n\
         static void launch_f32(float* x, int n, int t) {{ k<<<n, t>>>(x, n); }}\n\
         static void by_macro(float* x, int n) {{ LAUNCH(64); }}\n\
         extern \"C\" void via_function(float* x, int n) {{ by_macro(x, n); }}\n\
         extern \"C\" void via_paste(float* x, int n) {{ RUN(f32, 256); }}\n"
    );
    let r = occupancy_cuda::read_texts(&[("src/a.cu", &src)]);
    let mut got: Vec<String> = r
        .launches
        .iter()
        .flat_map(|l| {
            l.paths
                .iter()
                .map(move |p| format!("{}: {}", l.line, p.summary()))
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            "4: k grid ? block 256 smem 0 B",
            "4: k grid ? block ? smem 0 B",
            "5: k grid ? block 64 smem 0 B",
        ]
    );
}

#[test]
fn loops_that_cannot_change_the_launch_are_not_run_value_by_value() {
    // A counter the loop declares, alone changing, in a body with no effects: nothing
    // after the loop depends on it. And a launch inside two counted loops whose counters
    // reach only its arguments (a bitonic sort's steps) is read once. Both within the
    // budget, on every path.
    let src = format!(
        "{KERNEL}int pow2(int x) {{ int p = 1; while (p < x) {{ p *= 2; }} return p; }}\n\
         extern \"C\" void run({PARAMS}, unsigned* idx) {{\n{}\
         \x20 int padded = pow2(n > 4096 ? 4096 : n);\n\
         \x20 for (int i = 0; i < padded; i++) {{ idx[i] = i; }}\n\
         \x20 int threads = padded < 1024 ? padded : 1024;\n\
         \x20 for (int step = 2; step <= padded; step <<= 1) {{\n\
         \x20   for (int j = step >> 1; j > 0; j = j >> 1) {{\n\
         \x20     k<<<padded / threads, threads>>>(x, j);\n\
         \x20   }}\n\
         \x20 }}\n\
         }}\n",
        ""
    );
    let r = occupancy_cuda::read_texts(&[("src/a.cu", &src)]);
    assert_eq!(notes(&r), Vec::<String>::new());
    assert_eq!(r.launches.len(), 1);
    let mut blocks: Vec<String> = r.launches[0]
        .paths
        .iter()
        .map(|p| format!("{:?}", p.block))
        .collect();
    blocks.sort();
    blocks.dedup();
    // Every power of two the block can be, from 2 (the steps start at 2, so only a padded
    // size of 2 or more reaches the launch) to 1024.
    assert_eq!(
        blocks.len(),
        10,
        "{blocks:?} {:?}",
        r.launches[0].not_checked
    );
}

/// Each launch's line and its paths' summaries.
fn launches(src: &str) -> Vec<(u32, Vec<String>)> {
    let r = occupancy_cuda::read_texts(&[("src/a.cu", src)]);
    r.launches
        .iter()
        .map(|l| (l.line, l.paths.iter().map(|p| p.summary()).collect()))
        .collect()
}

#[test]
fn a_loop_that_writes_more_than_its_counters_by_name_is_run_value_by_value() {
    // The update writes `blk.x` too: `k` runs with 32 then 64, `k2` after the loop
    // with 64; read once, `k2` would get 32, a block the code never launches it with.
    let src = "__global__ void k(float* x, int i) {}\n__global__ void k2(float* x) {}\n\
               extern \"C\" void run(float* x, int n) {\n  dim3 blk(32);\n\
               \x20 for (int i = 0; i < 2; i++, blk.x = 64)\n    k<<<1, blk>>>(x, i);\n\
               \x20 k2<<<1, blk>>>(x);\n}\n";
    assert_eq!(
        launches(src),
        [
            (
                6,
                vec![
                    "k grid 1 block 32 smem 0 B".to_owned(),
                    "k grid 1 block 64 smem 0 B".to_owned()
                ]
            ),
            (7, vec!["k2 grid 1 block 64 smem 0 B".to_owned()])
        ]
    );
}

#[test]
fn a_bound_computed_from_a_run_time_value_is_still_tested_on_entry() {
    // `std::min(n, 4)` is at most 4: where `big` starts the counter at 8 the loop never
    // runs, so block 64 is never launched. (Only a bound that is anything an `int`
    // holds, `i < n`, is given up on at once.)
    let src = "__global__ void k(float* x) {}\n\
               extern \"C\" void run(float* x, int n, int big) {\n\
               \x20 int b = 32, s = 0;\n  if (big) { b = 64; s = 8; }\n\
               \x20 for (int i = s; i < std::min(n, 4); i++) {\n\
               \x20   k<<<1, b>>>(x);\n    cudaDeviceSynchronize();\n  }\n}\n";
    assert_eq!(
        launches(src),
        [(6, vec!["k grid 1 block 32 smem 0 B [!(big)]".to_owned()])]
    );
}

#[test]
fn a_nested_loop_counter_shadowing_a_launch_value_leaves_it_known() {
    // The inner loop declares its own `t`; the outer `t`, the block of `k`, stays 64.
    let src = "__global__ void k(float* x, int i) {}\n__global__ void k2(float* x, int t) {}\n\
               extern \"C\" void run(float* x) {\n  int t = 64;\n\
               \x20 for (int i = 0; i < 2; i++) {\n    k<<<1, t>>>(x, i);\n\
               \x20   for (int t = 0; t < 3; t++) k2<<<1, 32>>>(x, t);\n  }\n}\n";
    assert_eq!(
        launches(src),
        [
            (6, vec!["k grid 1 block 64 smem 0 B".to_owned()]),
            (7, vec!["k2 grid 1 block 32 smem 0 B".to_owned()])
        ]
    );
}

#[test]
fn a_loop_read_at_run_time_is_entered_only_where_its_condition_may_hold() {
    // `j` starts at 5: `while (j < 3)` never runs, so `k2` is never launched. The loop
    // on `n` may run zero times: the launch after it, past a body that returns, is made
    // on that path.
    let src = "__global__ void k(float* x, int i) {}\n__global__ void k2(float* x, int i) {}\n\
               extern \"C\" void run(float* x, int n) {\n  int j = 5;\n\
               \x20 while (j < 3) { k2<<<1, 128>>>(x, j); j++; }\n\
               \x20 for (int i = 0; i < n; i++) { k<<<1, 64>>>(x, i); return; }\n\
               \x20 k<<<1, 256>>>(x, n);\n}\n";
    assert_eq!(
        launches(src),
        [
            (5, vec![]),
            (6, vec!["k grid 1 block 64 smem 0 B".to_owned()]),
            (7, vec!["k grid 1 block 256 smem 0 B".to_owned()])
        ]
    );
}

/// A file whose macro `BIG()` expands to `2^depth` statements `v = v + 1;` that never
/// run (under `if (0)`), then launches.
fn big_expansion(depth: usize) -> String {
    let mut src = String::from("__global__ void k(float* x, int n) {}\n#define A0 v = v + 1;\n");
    for i in 1..=depth {
        src.push_str(&format!("#define A{i} A{} A{}\n", i - 1, i - 1));
    }
    src.push_str(&format!(
        "#define BIG() do {{ if (0) {{ A{depth} }} }} while (0)\n\
         extern \"C\" void run(float* x, int n) {{\n  int v = 0;\n  BIG();\n  k<<<n, 128>>>(x, n);\n}}\n"
    ));
    src
}

#[test]
fn parsing_a_macro_expansion_is_paid_for_from_the_budget() {
    // 2^10 statements (about 11 KiB) cost about 5,600 steps to parse: read, the launch
    // after them too.
    let src = big_expansion(10);
    assert_eq!(
        launches(&src),
        [(17, vec!["k grid ? block 128 smem 0 B".to_owned()])]
    );
    assert_eq!(
        notes(&occupancy_cuda::read_texts(&[("src/a.cu", &src)])),
        Vec::<String>::new()
    );
    // 2^14 (about 190 KiB, 2 bytes a step) cost more steps than the whole read may take:
    // not parsed, and said so (before, it was parsed and read without a note).
    let src = big_expansion(14);
    let r = occupancy_cuda::read_texts(&[("src/a.cu", &src)]);
    assert_eq!(
        notes(&r),
        [
            "src/a.cu:18: `run`: the reader's budget for these files (16000 steps, 4 per byte \
          of source, the parse of file-scope macro expansions included) is spent: the rest is \
          not read"
        ]
    );
}

#[test]
fn a_loop_condition_that_writes_is_not_tested_on_entry() {
    // `i++ < 0` writes `i`: the loop never runs, and `i` is 4 after it, not 3. The
    // reader does not apply a condition's writes, so it does not split on it: after
    // the loop `i` is unknown, never the stale 3.
    let src = "__global__ void k(float* x, int i) {}\n__global__ void k2(float* x) {}\n\
               extern \"C\" void run(float* x, int m) {\n  int i = 3;\n\
               \x20 while (i++ < 0) { k<<<1, 32>>>(x, i); i += m; }\n\
               \x20 k2<<<i, 64>>>(x);\n}\n";
    let got = launches(src);
    assert_eq!(got[1], (6, vec!["k2 grid ? block 64 smem 0 B".to_owned()]));
}

#[test]
fn a_helper_called_for_its_value_again_with_the_same_arguments_costs_once() {
    // ggml's tile choice: on each of 64 paths, a loop asks a helper the shared memory of
    // each tile; the helper costs over 64 steps. Followed at every call that is over
    // 64 x 5 x 64 steps, past the budget; with the same arguments the helper answers
    // the same.
    let src = format!(
        "{KERNEL}static int smem_of(int t) {{\n  int i = 0;\n  for (; i < 64;) {{ i += 1; }}\n  return t * 4;\n}}\n\
         extern \"C\" void run({PARAMS}) {{\n{}  int best = 32;\n\
         \x20 for (int t = 32; t <= 256; t *= 2) {{ if (smem_of(t) <= 512) {{ best = t; }} }}\n\
         \x20 k<<<n, best, smem_of(best)>>>(x, n);\n}}\n",
        ["a", "b", "c", "d", "e", "f"]
            .map(|c| format!("  float {c}_acc = 0.f;\n  if ({c} > 1) {{ {c}_acc = 1.f; }}\n"))
            .concat()
    );
    let r = occupancy_cuda::read_texts(&[("src/a.cu", &src)]);
    assert_eq!(notes(&r), Vec::<String>::new());
    assert_eq!(r.launches.len(), 1);
    let summaries: Vec<String> = r.launches[0].paths.iter().map(|p| p.summary()).collect();
    assert_eq!(summaries, ["k grid ? block 128 smem 512 B"]);
}

#[test]
fn a_helper_that_launches_is_followed_at_every_call() {
    // Called for its value twice with the same arguments: each call launches, and a
    // remembered answer would lose the second call's launch; its own arguments differ
    // from a third call's, whose launch has its own block.
    let src = format!(
        "{KERNEL}static int go(float* x, int n, int t) {{ k<<<n, t>>>(x, n); return t; }}\n\
         extern \"C\" void run(float* x, int n) {{\n  int a = go(x, n, 64);\n  int b = go(x, n, 64);\n  int c = go(x, n, 128);\n}}\n"
    );
    let r = occupancy_cuda::read_texts(&[("src/a.cu", &src)]);
    assert_eq!(notes(&r), Vec::<String>::new());
    let summaries: Vec<String> = r
        .launches
        .iter()
        .flat_map(|l| l.paths.iter().map(|p| p.summary()))
        .collect();
    assert_eq!(
        summaries,
        ["k grid ? block 64 smem 0 B", "k grid ? block 128 smem 0 B"]
    );
}

/// `n` launchers defined at file scope by a macro whose body holds `statements` statements.
fn big_definitions(statements: usize, n: usize) -> String {
    let mut src = format!(
        "__global__ void k(float* x, int n) {{}}\n\
         #define DEF(NAME, B) extern \"C\" void NAME(float* x, int n) {{ int v = 0; \\\n\
         if (0) {{ \\\n{}}} k<<<n, B>>>(x, n); }}\n",
        "  v = v + 1; \\\n".repeat(statements)
    );
    for i in 0..n {
        src.push_str(&format!("DEF(run{i}, {})\n", 32 * (i + 1)));
    }
    src
}

#[test]
fn file_scope_definitions_are_expanded_within_an_allowance_and_paid_for() {
    // Three launchers of 256 statements (about 3 KiB each): expanded, their parse taken
    // from the read's budget, each launch read.
    // One launch site (the `#define`'s line), a path per launcher expanded.
    let blocks = |r: &occupancy_cuda::Reading| -> Vec<String> {
        let mut out: Vec<String> = r
            .launches
            .iter()
            .flat_map(|l| l.paths.iter().map(|p| p.summary()))
            .collect();
        out.sort();
        out
    };
    let src = big_definitions(256, 3);
    let r = occupancy_cuda::read_texts(&[("src/a.cu", &src)]);
    assert_eq!(notes(&r), Vec::<String>::new());
    assert_eq!(
        blocks(&r),
        [
            "k grid ? block 32 smem 0 B",
            "k grid ? block 64 smem 0 B",
            "k grid ? block 96 smem 0 B"
        ]
    );
    // Twelve of 2,000 statements (about 26 KiB each, from a file of 30 KiB): five fit the
    // read's allowance (4 bytes per byte read, and 16 KiB: 134 KiB), the others are not
    // expanded, and said so; the five's parse takes about half the read's budget, and they
    // are read.
    let src = big_definitions(2000, 12);
    let r = occupancy_cuda::read_texts(&[("src/a.cu", &src)]);
    assert_eq!(
        notes(&r),
        [format!(
            "src/a.cu: 7 invocation(s) of macros that define functions are not expanded, so \
             what they define is not read: the read's {} KiB for such expansions (4 bytes per \
             byte of the files read, and 16 KiB) is spent",
            (src.len() * 4 + (16 << 10)) >> 10
        )]
    );
    assert_eq!(
        blocks(&r),
        [
            "k grid ? block 128 smem 0 B",
            "k grid ? block 160 smem 0 B",
            "k grid ? block 32 smem 0 B",
            "k grid ? block 64 smem 0 B",
            "k grid ? block 96 smem 0 B"
        ]
    );
}
