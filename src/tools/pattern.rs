//! The filter patterns of `aeron-stat` (`type=[1-9]`, `channel=udp`, ...): Java's
//! `AeronStat` takes regular expressions and keeps a counter when the pattern is *found*
//! anywhere in the field. This is the subset such filters use, with no dependency:
//! literals, `.`, classes `[a-z0-9]` / `[^...]`, escapes `\d \w \s` and `\<char>`,
//! quantifiers `* + ?`, anchors `^ $` and `|` alternatives (no groups or counted repeats;
//! those are rejected, not misread).

use crate::util::error::{Error, Result};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Atom {
    Literal(char),
    Any,
    /// Inclusive ranges; `negated` matches any char outside them.
    Class {
        ranges: Vec<(char, char)>,
        negated: bool,
    },
    Start,
    End,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Repeat {
    One,
    ZeroOrOne,
    ZeroOrMore,
    OneOrMore,
}

/// A compiled pattern: alternatives, each a sequence of repeated atoms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    source: String,
    alternatives: Vec<Vec<(Atom, Repeat)>>,
}

fn escape_class(c: char) -> Option<Atom> {
    let ranges = match c {
        'd' => vec![('0', '9')],
        'w' => vec![('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')],
        's' => vec![(' ', ' '), ('\t', '\r')],
        'D' | 'W' | 'S' => {
            let Some(Atom::Class { ranges, .. }) = escape_class(c.to_ascii_lowercase()) else { return None };
            return Some(Atom::Class { ranges, negated: true });
        }
        _ => return None,
    };
    Some(Atom::Class { ranges, negated: false })
}

fn parse_class(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, source: &str) -> Result<Atom> {
    let negated = chars.next_if_eq(&'^').is_some();
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let c = chars
            .next()
            .ok_or_else(|| Error::invalid_argument(format!("unclosed [ in pattern {source:?}")))?;
        match c {
            ']' if !first => return Ok(Atom::Class { ranges, negated }),
            '\\' => {
                let e = chars
                    .next()
                    .ok_or_else(|| Error::invalid_argument(format!("trailing \\ in {source:?}")))?;
                match escape_class(e) {
                    Some(Atom::Class { ranges: more, negated: false }) => ranges.extend(more),
                    Some(_) => return Err(Error::invalid_argument(format!("\\{e} inside [] in {source:?}"))),
                    None => ranges.push((e, e)),
                }
            }
            low => {
                if chars.peek() == Some(&'-') {
                    let mut ahead = chars.clone();
                    ahead.next();
                    if let Some(&high) = ahead.peek().filter(|&&h| h != ']') {
                        chars.next();
                        chars.next();
                        if high < low {
                            return Err(Error::invalid_argument(format!(
                                "bad range {low}-{high} in {source:?}"
                            )));
                        }
                        ranges.push((low, high));
                        first = false;
                        continue;
                    }
                }
                ranges.push((low, low));
            }
        }
        first = false;
    }
}

impl Pattern {
    /// Compiles `source`; unsupported syntax is an error that names it.
    pub fn new(source: &str) -> Result<Self> {
        let mut alternatives = vec![Vec::new()];
        let mut chars = source.chars().peekable();
        while let Some(c) = chars.next() {
            let atom = match c {
                '|' => {
                    alternatives.push(Vec::new());
                    continue;
                }
                '.' => Atom::Any,
                '^' => Atom::Start,
                '$' => Atom::End,
                '[' => parse_class(&mut chars, source)?,
                '\\' => {
                    let e = chars.next().ok_or_else(|| {
                        Error::invalid_argument(format!("trailing \\ in pattern {source:?}"))
                    })?;
                    escape_class(e).unwrap_or(Atom::Literal(e))
                }
                '*' | '+' | '?' => {
                    return Err(Error::invalid_argument(format!("{c} with nothing to repeat in {source:?}")));
                }
                '(' | ')' | '{' | '}' => {
                    return Err(Error::invalid_argument(format!(
                        "pattern {source:?}: groups and counted repeats are not supported"
                    )));
                }
                literal => Atom::Literal(literal),
            };
            let repeat = match chars.peek() {
                Some('*') => Repeat::ZeroOrMore,
                Some('+') => Repeat::OneOrMore,
                Some('?') => Repeat::ZeroOrOne,
                _ => Repeat::One,
            };
            if repeat != Repeat::One {
                chars.next();
                if matches!(atom, Atom::Start | Atom::End) {
                    return Err(Error::invalid_argument(format!("cannot repeat an anchor in {source:?}")));
                }
            }
            alternatives.last_mut().expect("never empty").push((atom, repeat));
        }
        Ok(Self { source: source.to_string(), alternatives })
    }

    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the pattern matches somewhere in `text` (Java's `Matcher.find`).
    pub fn is_found_in(&self, text: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        self.alternatives.iter().any(|items| (0..=text.len()).any(|start| matches_at(items, &text, start)))
    }
}

fn atom_matches(atom: &Atom, c: char) -> bool {
    match atom {
        Atom::Literal(l) => *l == c,
        Atom::Any => c != '\n',
        Atom::Class { ranges, negated } => ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated,
        Atom::Start | Atom::End => false,
    }
}

/// Backtracking match of `items` against `text` from `at` (greedy repeats).
fn matches_at(items: &[(Atom, Repeat)], text: &[char], at: usize) -> bool {
    let Some(((atom, repeat), rest)) = items.split_first() else { return true };
    match atom {
        Atom::Start => return at == 0 && matches_at(rest, text, at),
        Atom::End => return at == text.len() && matches_at(rest, text, at),
        _ => {}
    }
    let (min, max) = match repeat {
        Repeat::One => (1, 1),
        Repeat::ZeroOrOne => (0, 1),
        Repeat::ZeroOrMore => (0, usize::MAX),
        Repeat::OneOrMore => (1, usize::MAX),
    };
    let available = text[at..].iter().take(max).take_while(|&&c| atom_matches(atom, c)).count();
    (min..=available).rev().any(|n| matches_at(rest, text, at + n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(pattern: &str, text: &str) -> bool {
        Pattern::new(pattern).unwrap().is_found_in(text)
    }

    #[test]
    fn finds_like_java_find() {
        assert!(found("[1-9]", "12"));
        assert!(!found("[1-9]", "0"));
        assert!(found("^1$", "1"));
        assert!(!found("^1$", "11"));
        assert!(found("udp", "aeron:udp?endpoint=127.0.0.1:20121"));
        assert!(!found("ipc", "aeron:udp?endpoint=127.0.0.1:20121"));
        assert!(found("1|4", "4"));
        assert!(!found("^1$|^4$", "14"));
        assert!(found("a.c", "xabcx"));
        assert!(!found("a.c", "ac"));
        assert!(found("ab*c", "ac"));
        assert!(found("ab+c", "abbbc"));
        assert!(!found("ab+c", "ac"));
        assert!(found("^-?\\d+$", "-1698638129"));
        assert!(!found("^\\d+$", "-1"));
        assert!(found("[^0-9]", "12a"));
        assert!(!found("[^0-9]", "123"));
        assert!(found("127\\.0", "127.0.0.1"));
        assert!(!found("127\\.0", "12710"));
        assert!(found("[a-]", "-"));
        assert!(found("", "anything"));
        assert!(found("1.*9$", "1001 9"));
    }

    #[test]
    fn unsupported_or_broken_syntax_is_an_error() {
        for bad in ["(a)", "a{2}", "[abc", "*a", "a\\", "[z-a]", "^*"] {
            assert!(Pattern::new(bad).is_err(), "{bad}");
        }
    }
}
