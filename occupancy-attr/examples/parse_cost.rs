//! Times the front end on one wrapper, outside rustc: `cargo run --release -p occupancy-attr
//! --example parse_cost -- CRATE_DIR ['ATTRIBUTE ARGUMENTS']` (default arguments: `block = 256,
//! regs = 24, target = ["sm_80", "sm_90", "sm_86"]`).
use std::time::Instant;

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let env = occupancy_attr::Env::new(&dir);
    let item: syn::ItemFn = syn::parse_str("pub fn launch_0(n: u32) -> u32 { n }").unwrap();
    let wrapper = occupancy_attr::Wrapper::new(&item.sig, &item.block);
    let args: proc_macro2::TokenStream = std::env::args()
        .nth(2)
        .unwrap_or_else(|| r#"block = 256, regs = 24, target = ["sm_80", "sm_90", "sm_86"]"#.into())
        .parse()
        .unwrap();
    let n = 2000;
    let start = Instant::now();
    for _ in 0..n {
        let spec =
            occupancy_attr::parse(args.clone(), &wrapper, proc_macro2::Span::call_site(), &env)
                .unwrap();
        std::hint::black_box(spec.evaluate());
    }
    println!(
        "parse + evaluate: {:.1} us per wrapper",
        start.elapsed().as_secs_f64() * 1e6 / n as f64
    );
    let start = Instant::now();
    for _ in 0..n {
        std::hint::black_box(
            occupancy_attr::parse(args.clone(), &wrapper, proc_macro2::Span::call_site(), &env)
                .unwrap(),
        );
    }
    println!(
        "parse only: {:.1} us per wrapper",
        start.elapsed().as_secs_f64() * 1e6 / n as f64
    );
}
