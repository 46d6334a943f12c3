//! `#[identity]`: parses the item as a function with syn and re-emits it.
use proc_macro::TokenStream;

/// The function, unchanged (after a round trip through `syn::ItemFn`).
#[proc_macro_attribute]
pub fn identity(_args: TokenStream, item: TokenStream) -> TokenStream {
    match syn::parse::<syn::ItemFn>(item) {
        Ok(func) => quote::quote!(#func).into(),
        Err(e) => e.to_compile_error().into(),
    }
}
