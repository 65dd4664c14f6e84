//! String helpers of Aeron's `util/aeron_strutil.h` that C callers use: lower-case hex and
//! the in-place tokeniser.
#![forbid(unsafe_code)]

/// `bytes` as lower-case hex, two digits per byte.
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    text
}

/// More tokens than the caller has room for (`aeron_tokenise` returns `-ERANGE`).
#[derive(Debug, PartialEq, Eq)]
pub struct TooManyTokens;

/// Splits `text` (a C string without its NUL) on `delimiter` in place, as `aeron_tokenise`:
/// every delimiter becomes a NUL, and the offsets of the non-empty tokens are returned
/// last token first (Aeron's order). Scanning stops with [`TooManyTokens`] when a token
/// beyond `max_tokens` is found, leaving the delimiters seen so far replaced.
pub fn tokenise(text: &mut [u8], delimiter: u8, max_tokens: usize) -> Result<Vec<usize>, TooManyTokens> {
    let mut starts = Vec::new();
    for i in (0..text.len()).rev() {
        if text[i] == delimiter {
            text[i] = 0;
        }
        // The byte after the last one is the C string's NUL.
        let next_is_token = text.get(i + 1).is_some_and(|&b| b != 0);
        let start = if i == 0 && text[0] != 0 {
            Some(0)
        } else if text[i] == 0 && next_is_token {
            Some(i + 1)
        } else {
            None
        };
        if let Some(start) = start {
            if starts.len() >= max_tokens {
                return Err(TooManyTokens);
            }
            starts.push(start);
        }
    }
    Ok(starts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_lower_case_two_digits_per_byte() {
        assert_eq!(to_hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
        assert_eq!(to_hex(&[]), "");
    }

    #[test]
    fn tokens_come_last_first_with_delimiters_nulled() {
        let mut text = b"a,bc,,d".to_vec();
        assert_eq!(tokenise(&mut text, b',', 10), Ok(vec![6, 2, 0]));
        assert_eq!(text, b"a\0bc\0\0d");
    }

    #[test]
    fn leading_and_trailing_delimiters_make_no_empty_tokens() {
        let mut text = b",x,".to_vec();
        assert_eq!(tokenise(&mut text, b',', 10), Ok(vec![1]));
        let mut only = b",,,".to_vec();
        assert_eq!(tokenise(&mut only, b',', 10), Ok(vec![]));
        assert_eq!(tokenise(&mut [], b',', 10), Ok(vec![]));
    }

    #[test]
    fn too_many_tokens_is_an_error() {
        let mut text = b"a b c".to_vec();
        assert_eq!(tokenise(&mut text, b' ', 2), Err(TooManyTokens));
        let mut exact = b"a b".to_vec();
        assert_eq!(tokenise(&mut exact, b' ', 2), Ok(vec![2, 0]));
    }
}
