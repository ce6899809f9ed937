//! The tie-break string order: JavaScript `localeCompare` under an en/root default locale,
//! i.e. CLDR root collation at tertiary strength with punctuation non-ignorable, numeric off
//! and case-first off (spec §2.9). Never `str::cmp`.

use icu_collator::options::{AlternateHandling, CollatorOptions, Strength};
use icu_collator::{CollatorBorrowed, CollatorPreferences};
use std::cmp::Ordering;
use std::sync::LazyLock;

/// Built once: the root collator borrows compiled-in data, so this is a few pointers.
static ROOT: LazyLock<Option<CollatorBorrowed<'static>>> = LazyLock::new(|| {
    let mut options = CollatorOptions::default();
    options.strength = Some(Strength::Tertiary);
    options.alternate_handling = Some(AlternateHandling::NonIgnorable);
    CollatorBorrowed::try_new(CollatorPreferences::default(), options).ok()
});

/// Compares two strings like `a.localeCompare(b)` under CLDR root.
///
/// Falls back to code-point order only if the compiled collation data failed to load, which
/// the unit tests below rule out for this build.
pub(crate) fn compare(a: &str, b: &str) -> Ordering {
    match ROOT.as_ref() {
        Some(c) => c.compare(a, b),
        None => a.cmp(b),
    }
}

#[cfg(test)]
mod tests {
    use super::compare;

    #[test]
    fn root_collation_orders_like_local_compare() {
        let mut v = vec![
            "b", "a-c", "a_c", "a.c", "ac", "A", "a", "a1", "a10", "a2", "B",
        ];
        v.sort_by(|a, b| compare(a, b));
        assert_eq!(
            v,
            vec![
                "a", "A", "a_c", "a-c", "a.c", "a1", "a10", "a2", "ac", "b", "B"
            ]
        );
        assert!(compare("dev-echo", "gemini").is_lt());
        assert!(compare("openai", "OpenAI").is_lt());
        assert!(compare("Zeta", "alpha").is_gt());
        assert!(compare("gpt-4o", "gpt-4o-mini").is_lt());
        assert!(compare("resume", "résumé").is_lt());
        assert!(compare("résumé", "resumes").is_lt());
        assert!(compare("a", "a\u{0}").is_eq());
        assert!(compare("x\u{200B}y", "xy").is_eq());
        assert!(compare("ß", "ss").is_gt());
        assert!(compare("a/b", "a-b").is_gt());
    }

    /// Characters Unicode 17 added, in the order of Node 20.20.2 (ICU 78.2, the recorded
    /// peer): the collation data must be ICU 78's (icu_collator 2.3), not a newer Unicode's.
    #[test]
    fn characters_of_unicode_17_order_as_icu_78() {
        let mut v = vec![
            "\u{2E60}", "z", "\u{0B53}", "a", "\u{0558}", "\u{208F}", "\u{2E5D}", "b", "\u{1ADE}",
            "\u{0559}",
        ];
        v.sort_by(|a, b| compare(a, b));
        assert_eq!(
            v,
            vec![
                "\u{2E5D}", "a", "b", "z", "\u{0559}", "\u{0558}", "\u{0B53}", "\u{1ADE}",
                "\u{208F}", "\u{2E60}"
            ]
        );
    }
}
