//! Power-of-two and alignment arithmetic shared by every layout.
#![forbid(unsafe_code)]

/// Aeron and Agrona pad hot fields to this many bytes.
pub const CACHE_LINE_LENGTH: usize = 64;

/// Rounds `value` up to the next multiple of `alignment`, which must be a power of two.
#[inline]
pub const fn align(value: usize, alignment: usize) -> usize {
    (value + (alignment - 1)) & !(alignment - 1)
}

/// `align` for 64-bit positions.
#[inline]
pub const fn align_i64(value: i64, alignment: i64) -> i64 {
    (value + (alignment - 1)) & !(alignment - 1)
}

#[inline]
pub const fn is_power_of_two(value: u64) -> bool {
    value > 0 && (value & (value - 1)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn align_rounds_up_to_multiple() {
        assert_eq!(align(0, 8), 0);
        assert_eq!(align(1, 8), 8);
        assert_eq!(align(8, 8), 8);
        assert_eq!(align(33, 32), 64);
        assert_eq!(align_i64(4097, 4096), 8192);
    }

    #[test]
    fn power_of_two_checks() {
        assert!(!is_power_of_two(0));
        assert!(is_power_of_two(1));
        assert!(is_power_of_two(1 << 40));
        assert!(!is_power_of_two(12));
    }
}
