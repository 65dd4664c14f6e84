//! Power-of-two and alignment arithmetic shared by every layout.
#![forbid(unsafe_code)]

/// Aeron and Agrona pad hot fields to this many bytes.
pub const CACHE_LINE_LENGTH: usize = 64;

/// Rounds `value` up to the next multiple of `alignment`, which must be a power of two.
#[inline]
pub const fn align(value: usize, alignment: usize) -> usize {
    (value + (alignment - 1)) & !(alignment - 1)
}

/// `align` for signed 32-bit lengths as they sit in shared memory.
#[inline]
pub const fn align_i32(value: i32, alignment: i32) -> i32 {
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

/// Whether `value` is a multiple of the power-of-two `alignment`.
#[inline]
pub const fn is_aligned(value: usize, alignment: usize) -> bool {
    value & (alignment - 1) == 0
}

/// Smallest power of two `>= value` (1 for 0).
#[inline]
pub const fn find_next_power_of_two(value: u64) -> u64 {
    if value <= 1 { 1 } else { 1 << (64 - (value - 1).leading_zeros()) }
}

/// log2 of a power of two.
#[inline]
pub const fn number_of_trailing_zeros(value: u64) -> u32 {
    value.trailing_zeros()
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
        assert_eq!(align_i32(39, 32), 64);
        assert_eq!(align_i64(4097, 4096), 8192);
    }

    #[test]
    fn power_of_two_checks() {
        assert!(!is_power_of_two(0));
        assert!(is_power_of_two(1));
        assert!(is_power_of_two(1 << 40));
        assert!(!is_power_of_two(12));
        assert_eq!(find_next_power_of_two(0), 1);
        assert_eq!(find_next_power_of_two(5), 8);
        assert_eq!(find_next_power_of_two(64), 64);
        assert_eq!(number_of_trailing_zeros(65536), 16);
        assert!(is_aligned(96, 32));
        assert!(!is_aligned(100, 32));
    }
}
