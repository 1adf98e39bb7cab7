use super::*;

#[test]
fn it_works() { assert_eq!(helper(), 10); }
