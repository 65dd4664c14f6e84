//! The golden vectors are readable and intact (their SHA256SUMS sizes match what the
//! README promises), so the per-layer vector tests read real Aeron bytes.
mod common;

#[test]
fn cnc_and_logbuffer_vectors_have_documented_sizes() {
    let Some(cnc) = common::read_vector("cnc-fresh.dat.gz") else { return };
    assert_eq!(cnc.len(), 8_392_704, "cnc.dat of a default-sized driver");
    let log = common::read_vector("ipc-publication.logbuffer").unwrap();
    assert_eq!(log.len(), 3 * 65536 + 4096);
}
