//! Text as a paper typesets it: the report's and the pictures' math in Unicode.

/// Text as a paper typesets it, in Unicode (drawn with the bundled font, offline): powers `^2`
/// and `^e` as superscripts (`log² n`, `x²`, `c xᵉ`), `_` subscripts as subscripts where Unicode
/// has them (`c_max` as `cₘₐₓ`; capitals have none: `P_LL` as `P_LL`), `>=`, `<=` as `≥`, `≤`,
/// `Theta(`, `Omega(` as `Θ(`, `Ω(`, and `R^2` as `R²`.
pub fn typeset(text: &str) -> String {
    const SUPER: [(char, char); 15] = [
        ('0', '⁰'),
        ('1', '¹'),
        ('2', '²'),
        ('3', '³'),
        ('4', '⁴'),
        ('5', '⁵'),
        ('6', '⁶'),
        ('7', '⁷'),
        ('8', '⁸'),
        ('9', '⁹'),
        ('e', 'ᵉ'),
        ('n', 'ⁿ'),
        ('x', 'ˣ'),
        ('N', 'ᴺ'),
        ('-', '⁻'),
    ];
    const SUB: [(char, char); 23] = [
        ('0', '₀'),
        ('1', '₁'),
        ('2', '₂'),
        ('3', '₃'),
        ('4', '₄'),
        ('5', '₅'),
        ('6', '₆'),
        ('7', '₇'),
        ('8', '₈'),
        ('9', '₉'),
        ('a', 'ₐ'),
        ('e', 'ₑ'),
        ('m', 'ₘ'),
        ('n', 'ₙ'),
        ('x', 'ₓ'),
        ('k', 'ₖ'),
        ('l', 'ₗ'),
        ('s', 'ₛ'),
        ('t', 'ₜ'),
        ('i', 'ᵢ'),
        ('r', 'ᵣ'),
        ('u', 'ᵤ'),
        ('v', 'ᵥ'),
    ];
    let text = text.replace(">=", "≥").replace("<=", "≤").replace("Theta(", "Θ(").replace("Omega(", "Ω(");
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let table: &[(char, char)] = match chars[i] {
            '^' => &SUPER,
            '_' => &SUB,
            _ => &[],
        };
        let rest = &chars[i + 1..];
        let sign = usize::from(rest.first() == Some(&'-'));
        let word = &rest[..sign + rest[sign..].iter().take_while(|c| c.is_ascii_alphanumeric()).count()];
        let mapped: Option<String> =
            word.iter().map(|c| table.iter().find(|(from, _)| from == c).map(|&(_, to)| to)).collect();
        match mapped {
            Some(script) if !word.is_empty() && !table.is_empty() => {
                out += &script;
                i += 1 + word.len();
            }
            _ => {
                out.push(chars[i]);
                i += 1;
            }
        }
    }
    out
}
