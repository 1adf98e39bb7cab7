use super::MAX;

pub(crate) fn helper() -> usize { MAX }
