use tiny_store::store::Store;

#[test]
fn roundtrip() {}
