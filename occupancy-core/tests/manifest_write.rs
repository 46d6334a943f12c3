//! `Manifest::write` reads and writes only a regular file: before, it read whatever was at
//! the path first (to leave a file holding the same text untouched), so `/dev/zero` grew
//! past 8 GB and a FIFO hung.
#![cfg(feature = "resources")]

use occupancy_core::resources::manifest::Manifest;

#[test]
fn write_reads_and_writes_only_regular_files() {
    let dir = std::env::temp_dir().join(format!("occupancy-manifest-write-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let m = Manifest::new("test");
    // A new file, in a folder created for it; written again, the same text.
    let file = dir.join("sub/kernels.manifest.json");
    m.write(&file).unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), m.to_json());
    m.write(&file).unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), m.to_json());
    // Another text of another length is replaced.
    std::fs::write(&file, "{}").unwrap();
    m.write(&file).unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), m.to_json());
    // A folder is refused, and so is a device.
    let err = m.write(dir.join("sub")).unwrap_err().to_string();
    assert!(err.contains("it exists and is not a regular file"), "{err}");
    #[cfg(unix)]
    {
        let err = m.write("/dev/zero").unwrap_err().to_string();
        assert_eq!(
            err,
            "cannot write resource manifest /dev/zero: it exists and is not a regular file"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
