//! Standard output for every command: the text written whole, and a write that fails (a
//! pipe closed early, `| head`; a full disk, `> /dev/full`) an error on standard error and
//! exit status 2, where `print!` would panic.

use std::io::Write;
use std::process::ExitCode;

/// Writes `text` to standard output.
///
/// # Errors
///
/// The exit status to return (2) once the failure is reported on standard error.
pub(crate) fn print(text: &str) -> Result<(), ExitCode> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "error: cannot write to standard output: {e}"
            );
            Err(ExitCode::from(2))
        }
    }
}
