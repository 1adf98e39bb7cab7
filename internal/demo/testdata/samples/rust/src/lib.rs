//! Percentages of parts of a whole.

/// Returns `part` as a whole percentage of `whole`, rounded down.
pub fn percent(part: u32, whole: u32) -> u32 {
    part * 100 / whole
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_is_fifty() {
        assert_eq!(percent(1, 2), 50);
    }
}
