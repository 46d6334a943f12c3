//! The policy's error messages stay readable on hostile files: a message quoting a value
//! is cut, with how much was left out.

#![cfg(feature = "policy")]

use occupancy_core::policy::Policy;

/// Before: a refused 200 KB string was quoted whole in the error.
#[test]
fn a_message_quoting_a_huge_value_is_cut() {
    let huge = "x".repeat(200_000);
    let errors = Policy::from_toml(&format!("min_occupancy = \"{huge}\"\n")).unwrap_err();
    assert_eq!(errors.len(), 1);
    let message = errors[0].to_string();
    assert!(message.starts_with("1:17: "), "{}", &message[..100]);
    assert!(
        message.chars().count() < 400,
        "{} characters",
        message.len()
    );
    // The key at the start, what is wrong at the end, the middle of the value left out.
    assert!(
        message.starts_with("1:17: `min_occupancy`: `xxxx")
            && message.contains(" ...(199")
            && message.contains(" characters left out)... xxxx")
            && message.ends_with("` is not a fraction with at most four decimals"),
        "{message}"
    );
    // A short one is whole.
    let errors = Policy::from_toml("min_occupancy = \"high\"\n").unwrap_err();
    assert!(!errors[0].to_string().contains("left out"), "{}", errors[0]);
}
