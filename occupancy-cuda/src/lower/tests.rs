use super::*;
use crate::index::Index;
use crate::preproc::{Build, Decider};
use crate::syntax::Code;

/// `f` on the function `name` of `text` (a unit of one file) and the unit (its index and
/// `#if` decider, no `-D` macros).
fn with_function<R>(text: &str, name: &str, f: impl FnOnce(&Function<'_>, Unit<'_>) -> R) -> R {
    let code = Code::parse(text.to_owned(), "a.cu".to_owned(), None);
    let build = Build::default();
    let decider = Decider::new(&build, [text]);
    let index = Index::build(&[&code], &decider);
    let function = index
        .all_functions
        .iter()
        .find(|f| f.name == name)
        .expect("the function");
    f(
        function,
        Unit {
            index: &index,
            decider: Some(&decider),
        },
    )
}

/// The lowering of the function `name` of `text`, printed as Rust-like text (one statement
/// per line, blocks indented), with what was not lowered.
fn lowered(text: &str, name: &str) -> (String, Vec<(u32, String)>) {
    let lowered = with_function(text, name, function);
    let mut out = String::new();
    block(&lowered.body, 0, &mut out);
    (out, lowered.not_lowered)
}

fn block(b: &Block, indent: usize, out: &mut String) {
    for s in &b.stmts {
        out.push_str(&"  ".repeat(indent));
        match s {
            Stmt::Let(l) => {
                let ty = l.ty.map(|t| format!(": {}", t.name())).unwrap_or_default();
                let name = match &l.pat {
                    Pat::Bind(n, _) => n.clone(),
                    other => format!("{other:?}"),
                };
                match &l.init {
                    Some(e) => {
                        out.push_str(&format!("let {name}{ty} = "));
                        expr(e, indent, out);
                    }
                    None => out.push_str(&format!("let {name}{ty}")),
                }
            }
            Stmt::Expr(e) => expr(e, indent, out),
            Stmt::Item(_) => out.push_str("item"),
        }
        out.push('\n');
    }
    if let Some(t) = &b.tail {
        out.push_str(&"  ".repeat(indent));
        expr(t, indent, out);
        out.push('\n');
    }
}

fn braced(b: &Block, indent: usize, out: &mut String) {
    out.push_str("{\n");
    block(b, indent + 1, out);
    out.push_str(&"  ".repeat(indent));
    out.push('}');
}

fn expr(e: &Expr, indent: usize, out: &mut String) {
    match e {
        Expr::If(i) => {
            out.push_str(&format!("if {} ", ir::text(&i.condition)));
            braced(&i.then, indent, out);
            if let Some(o) = &i.otherwise {
                out.push_str(" else ");
                expr(o, indent, out);
            }
        }
        Expr::Block(b) => braced(b, indent, out),
        Expr::Loop(l) => {
            match &l.kind {
                LoopKind::While(c) => out.push_str(&format!("while {} ", ir::text(c))),
                _ => out.push_str("loop "),
            }
            braced(&l.body, indent, out);
        }
        Expr::Labeled(label, inner) => {
            out.push_str(&format!("{label}: "));
            expr(inner, indent, out);
        }
        Expr::Match(m) => {
            out.push_str(&format!("match {} {{\n", ir::text(&m.scrutinee)));
            for arm in &m.arms {
                out.push_str(&"  ".repeat(indent + 1));
                let pat = match &arm.pat {
                    Pat::Wild => "_".to_owned(),
                    Pat::Lit(l) => ir::text(l),
                    Pat::Path(p) => p.text(),
                    other => format!("{other:?}"),
                };
                out.push_str(&format!("{pat} => "));
                expr(&arm.body, indent + 1, out);
                out.push('\n');
            }
            out.push_str(&"  ".repeat(indent));
            out.push('}');
        }
        Expr::Assign(l, op, r) => {
            let op = op.map_or(String::new(), |o| o.symbol().to_owned());
            out.push_str(&format!("{} {op}= ", ir::text(l)));
            expr(r, indent, out);
        }
        Expr::Return(v) => {
            out.push_str("return");
            if let Some(v) = v {
                out.push(' ');
                expr(v, indent, out);
            }
        }
        Expr::Break(label, value) => {
            out.push_str("break");
            if let Some(l) = label {
                out.push_str(&format!(" {l}"));
            }
            if let Some(v) = value {
                out.push(' ');
                expr(v, indent, out);
            }
        }
        Expr::Continue(_) => out.push_str("continue"),
        Expr::CustLaunch(c) => out.push_str(&format!(
            "launch {}<<<{}, {}, {}>>>",
            c.kernel.as_ref().map_or("?", |k| k.0.as_str()),
            ir::text(&c.grid),
            ir::text(&c.block),
            ir::text(&c.smem)
        )),
        Expr::Int(v, Some(ty)) => out.push_str(&format!("{v}{}", ty.name())),
        other => out.push_str(&ir::text(other)),
    }
}

#[test]
fn integer_literals_have_cpps_types() {
    let cases: &[(&str, Option<(i128, IntTy)>)] = &[
        ("0", Some((0, IntTy::I32))),
        ("256", Some((256, IntTy::I32))),
        ("2147483647", Some((2_147_483_647, IntTy::I32))),
        // A decimal past `int` is `long`; a hexadecimal one `unsigned` first.
        ("2147483648", Some((2_147_483_648, IntTy::I64))),
        ("0x80000000", Some((2_147_483_648, IntTy::U32))),
        ("0xFFFFFFFF", Some((4_294_967_295, IntTy::U32))),
        ("0x100000000", Some((4_294_967_296, IntTy::I64))),
        ("0xFFFFFFFFFFFFFFFF", Some((u64::MAX.into(), IntTy::U64))),
        ("18446744073709551615", None),
        ("256u", Some((256, IntTy::U32))),
        ("256U", Some((256, IntTy::U32))),
        ("4294967296u", Some((4_294_967_296, IntTy::U64))),
        ("1ul", Some((1, IntTy::U64))),
        ("1LLU", Some((1, IntTy::U64))),
        ("10LL", Some((10, IntTy::I64))),
        ("10l", Some((10, IntTy::I64))),
        ("1z", Some((1, IntTy::I64))),
        ("1uz", Some((1, IntTy::U64))),
        ("017", Some((15, IntTy::I32))),
        ("0b1010", Some((10, IntTy::I32))),
        ("1'024", Some((1024, IntTy::I32))),
        ("1.0f", None),
        ("1e5", None),
        ("0x1p3", None),
        ("08", None),
        ("1lul", None),
        ("1lL", None),
        ("1LLu", Some((1, IntTy::U64))),
        ("0x", None),
    ];
    for (text, want) in cases {
        assert_eq!(number(text), *want, "{text}");
    }
}

#[test]
fn a_launcher_is_lowered_with_its_dims_and_launch() {
    let (text, not_lowered) = lowered(
        r#"
template <typename T, int N> __global__ void kern(T* x, int n) {}
extern "C" void launch(int n, float* x, dim3 given, cudaStream_t s) {
  const int threads = n < 1024 ? 256 : 1024;
  unsigned blocks = (n + threads - 1) / threads, spare;
  dim3 grid(blocks);
  dim3 block = {threads, 2};
  dim3 one;
  int offset = -1;
  size_t smem = static_cast<size_t>(threads) * 4u;
  block.y = std::min(block.y, 4);
  kern<float, 4><<<grid, block, smem, s>>>(x, n);
  kern<float, 8><<<blocks, 128>>>(x, n);
  kern<float, 8><<<given, dim3(32, 4)>>>(x, n);
}
"#,
        "launch",
    );
    assert_eq!(
        text,
        "let threads: i32 = if n < 1024 {
  256i32
} else {
  1024i32
}
let blocks: u32 = (n + threads - 1) / threads
let spare: u32
let grid = (blocks, 1, 1)
let block = (threads, 2, 1)
let one = (1, 1, 1)
let offset: i32 = -1
let smem: u64 = threads as u64 * 4
block.1 = block.1.min(4)
launch kern<float, 4><<<grid, block, smem>>>
launch kern<float, 8><<<(blocks, 1, 1), (128, 1, 1), 0>>>
launch kern<float, 8><<<given, (32, 4, 1), 0>>>
"
    );
    assert!(not_lowered.is_empty(), "{not_lowered:?}");
}

#[test]
fn a_switch_runs_on_into_the_next_case_until_a_break() {
    let (text, not_lowered) = lowered(
        r#"
void pick(int dtype, int n) {
  int block;
  switch (dtype) {
    case 0:
    case 1:
      block = 128;
      break;
    default:
      block = 64;
    case 2:
      if (n > 4) { block = 512; break; }
      block = 256;
      break;
    case KIND_F8: return;
  }
}
"#,
        "pick",
    );
    assert_eq!(
        text,
        "let block: i32
'switch0: {
  let switch#0 = match dtype {
    0 => 0
    1 => 1
    2 => 3
    KIND_F8 => 4
    _ => 2
  }
  if switch#0 <= 1 {
    block = 128i32
    break 'switch0
  }
  if switch#0 <= 2 {
    block = 64i32
  }
  if switch#0 <= 3 {
    if n > 4 {
      block = 512i32
      break 'switch0
    }
    block = 256i32
    break 'switch0
  }
  if switch#0 <= 4 {
    return
  }
}
"
    );
    assert!(not_lowered.is_empty(), "{not_lowered:?}");
}

#[test]
fn loops_run_their_update_or_test_on_continue() {
    let (text, not_lowered) = lowered(
        r#"
void loops(int n) {
  int b = 32;
  for (int i = 0; i < 4; i++) {
    if (i == n) continue;
    while (b < n) b *= 2;
  }
  do { b -= 1; if (b) continue; } while (b > 8);
  for (;;) { break; }
}
"#,
        "loops",
    );
    assert_eq!(
        text,
        "let b: i32 = 32i32
{
  let i: i32 = 0i32
  while i < 4 {
    if i == n {
      {
        i += 1
        continue
      }
    }
    while b < n {
      b *= 2i32
    }
    i += 1
  }
}
loop {
  b -= 1i32
  if b != 0 {
    {
      if !(b > 8) {
        break
      }
      continue
    }
  }
  if !(b > 8) {
    break
  }
}
{
  loop {
    break
  }
}
"
    );
    assert!(not_lowered.is_empty(), "{not_lowered:?}");
}

#[test]
fn what_is_not_lowered_is_listed_and_havocs_what_it_writes() {
    let (text, not_lowered) = lowered(
        "void f(int n, float* p) {\n  size_t bytes = sizeof(Row) * n + sizeof(__half2) + alignof(double);\n  auto g = [&](int x) { n = x; };\n  float scale = 1.0f;\n  try { n = 2; } catch (...) {}\n  p[0] = 1;\n}\n",
        "f",
    );
    assert_eq!(
        text,
        "let bytes: u64 = `sizeof(Row)` (the size of a type not laid out: `Row` is not a type whose size the reader knows (a template's parameter, or declared without members)) * n + 4 + 8
let g = `[&](int x) { n = x; }` (LambdaExpression)
let scale = `1.0f` (a floating-point or unreadable number)
`try { n = 2; } catch (...) {}` (TryStatement)
`p[0]` (SubscriptExpression) = 1i32
"
    );
    let lines: Vec<u32> = not_lowered.iter().map(|(line, _)| *line).collect();
    assert_eq!(lines, [2, 3, 4, 5, 6], "{not_lowered:?}");
}

#[test]
fn launches_are_found_in_the_lowered_body_where_they_are_written() {
    let text = r#"
#define CHECK(x) do { if ((x) != 0) return; } while (0)
__global__ void k(int n) {}
void run(int n, int kind) {
  switch (kind) {
    case 1: k<<<n, 128>>>(n); break;
    default: for (int i = 0; i < 2; ++i) { if (n > i) k<<<1, n > 64 ? 64 : 32>>>(n); }
  }
  auto later = [=]() { k<<<1, 32>>>(n); };
  CHECK(cudaGetLastError());
}
"#;
    let (lowered, written) = with_function(text, "run", |f, unit| {
        (function(f, unit), chevrons_written(f.body))
    });
    let mut found = Vec::new();
    ir::visit_block(&lowered.body, &mut |e| {
        if let Expr::CustLaunch(c) = e {
            found.push(ir::text(&c.block));
        }
    });
    // The launch in the lambda is not lowered; the macro is expanded.
    assert_eq!(written, 3);
    assert_eq!(found, ["(128, 1, 1)", "(if .., 1, 1)"]);
    let what: Vec<&str> = lowered
        .not_lowered
        .iter()
        .map(|(_, w)| w.as_str())
        .collect();
    assert_eq!(what, ["LambdaExpression"]);
}

#[test]
fn macros_are_expanded_where_they_are_invoked() {
    let (text, not_lowered) = lowered(
        r#"
#define BLOCK 256
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
#define LAUNCH(T, BS) kern<T><<<CEIL_DIV(n, BS), BS>>>(n)
#define CHECK(x) do { if ((x) != 0) return; } while (0)
#define HUGE(x) x x x x x x x x x x x x x x x x
template <typename T> __global__ void kern(int n) {}
void run(int n) {
  int grid = CEIL_DIV(n, BLOCK);
  int again = BLOCK * 2;
  LAUNCH(float, 128);
  LAUNCH(__nv_bfloat16, 64); LAUNCH(uint8_t, BLOCK);
  CHECK(grid);
}
"#,
        "run",
    );
    assert_eq!(
        text,
        "let grid: i32 = (n + 256 - 1) / 256
let again: i32 = 256 * 2
launch kern<float><<<((n + 128 - 1) / 128, 1, 1), (128, 1, 1), 0>>>
launch kern<__nv_bfloat16><<<((n + 64 - 1) / 64, 1, 1), (64, 1, 1), 0>>>
launch kern<uint8_t><<<((n + 256 - 1) / 256, 1, 1), (256, 1, 1), 0>>>
loop {
  if grid != 0 {
    return
  }
  if !(0 != 0) {
    break
  }
}
"
    );
    assert!(not_lowered.is_empty(), "{not_lowered:?}");
}

#[test]
fn a_bodys_macro_expansions_are_bounded() {
    let calls = "  C(n += 1000;)\n".repeat(10);
    let text = format!(
        "#define A(x) x x x x x x x x x x\n#define B(x) A(A(x))\n#define C(x) B(B(x))\n__global__ void k(int n) {{}}\nvoid run(int n) {{\n{calls}}}\n"
    );
    let (lowered_text, not_lowered) = lowered(&text, "run");
    // 10,000 statements an invocation, 110 KB: the first nine fit in 1 MiB, the tenth not.
    assert_eq!(lowered_text.matches("n += 1000i32").count(), 90_000);
    let past: Vec<&str> = not_lowered.iter().map(|(_, w)| w.as_str()).collect();
    assert_eq!(
        past,
        ["a macro invocation: the function's macros expand to more than 1024 KiB"]
    );
}

#[test]
fn a_lambda_called_in_place_is_a_block_its_return_leaves() {
    let (text, not_lowered) = lowered(
        r#"
#define BOOL_SWITCH(c, NAME, ...) [&] { if (c) { constexpr bool NAME = true; return __VA_ARGS__(); } else { constexpr bool NAME = false; return __VA_ARGS__(); } }()
template <bool Even> __global__ void kern(int n) {}
void run(int n) {
  BOOL_SWITCH(n % 2 == 0, IsEven, [&] { kern<IsEven><<<n, 128>>>(n); });
  int tile = [&] { if (n > 64) return 64; return 32; }();
  auto f = [&](int x) { return x; }(3);
}
"#,
        "run",
    );
    assert_eq!(
        text,
        "'lambda0: {
  if n % 2 == 0 {
    let IsEven = true
    break 'lambda0 'lambda1: {
      launch kern<IsEven><<<(n, 1, 1), (128, 1, 1), 0>>>
    }
  } else {
    let IsEven = false
    break 'lambda0 'lambda2: {
      launch kern<IsEven><<<(n, 1, 1), (128, 1, 1), 0>>>
    }
  }
}
let tile: i32 = 'lambda3: {
  if n > 64 {
    break 'lambda3 64i32
  }
  break 'lambda3 32i32
}
let f = `[&](int x) { return x; }(3)` (a call of an expression)
"
    );
    assert_eq!(not_lowered.len(), 1, "{not_lowered:?}");
}

#[test]
fn a_switch_of_many_cases_that_run_on_stays_linear() {
    let cases: String = (0..3000).map(|i| format!("case {i}: b = {i};\n")).collect();
    let text = format!("void f(int n) {{ int b = 0; switch (n) {{ {cases} }} }}");
    let (lowered_text, not_lowered) = lowered(&text, "f");
    // One arm and one `if` per case (a copy of the following cases per arm: 4.5 M).
    assert_eq!(lowered_text.matches("b = ").count(), 3000);
    assert_eq!(lowered_text.matches(" => ").count(), 3001);
    assert!(not_lowered.is_empty());
}
