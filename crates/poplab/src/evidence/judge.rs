//! Judging a claim: [`Rule`], the one type that says which rule of [`crate::verdict`] and
//! [`crate::growth`] decides a claim on measured points (the reproduction's claims hold one, and a
//! user's claim becomes one), and [`ClaimText`], claims written as in the papers, `O(log n)`,
//! `Omega(n^2)`, `Theta(n log n)`, `= (n-1)^2`, `Omega(e^N)`, parsed into a [`Rule`]: the same
//! rules, and the same evidence text, as the reproduction's claims. (Python's `poplab.judge` and
//! `poplab sweep --claim` judge through it.)
//!
//! A claim is about the mean of what was measured, as a function of the swept variable (`n`, or
//! a parameter such as `N`); any other variable in it must have one value in the data (a
//! parameter held fixed, or `n` when a parameter is swept). Expressions take numbers, variables,
//! `+ - * / ^`, parentheses, juxtaposition for products (`n log n`, `N log n`, `2 n`), and the
//! functions `log` and `ln` (natural: a claim's `O` hides the base), `lg` (base 2), `log2`,
//! `log10`, `sqrt`, `exp`, `ceil` and `floor`, applied to the next factor or a parenthesis; `log^2 n` is
//! `(log n)^2`, and `e` is Euler's number.
//! - `O(f)`, `Omega(f)` (or `Ω(f)`): the growth rule ([`crate::growth::growth`]).
//! - `Theta(f)` (or `Θ(f)`): both; the worse verdict.
//! - `= f`: the exact mean ([`crate::verdict::exact_mean`], Student t with the sample variance).
//! - `Omega(e^(r x))` or `Omega(exp(r x))` with `r x` linear in the swept variable `x`: an
//!   exponential lower bound at rate `r` ([`crate::verdict::exponential_at_least`]).
//!
//! ```
//! use poplab::judge::ClaimText;
//! use poplab::verdict::{Point, Verdict};
//!
//! let claim = ClaimText::parse("O(n log n)")?;
//! // Means growing like 3 n log n, four trials per size.
//! let points: Vec<Point> = [100.0, 1000.0, 10_000.0, 100_000.0]
//!     .into_iter()
//!     .map(|n: f64| {
//!         let m = 3.0 * n * n.ln();
//!         Point { x: n, values: vec![0.99 * m, m, 1.01 * m, m], censored: 0, horizon: f64::INFINITY }
//!     })
//!     .collect();
//! let judgement = claim.judge(&points, "n", &[])?;
//! assert_eq!(judgement.verdict, Verdict::Consistent, "{}", judgement.evidence);
//! assert_eq!(ClaimText::parse("O(n)")?.judge(&points, "n", &[])?.verdict, Verdict::Inconsistent);
//! # Ok::<(), poplab::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::fit::Form;
use crate::growth::{Bound, Estimate, growth};
use crate::verdict::{self, Judgement, LogPoint, Moments, Point, Verdict};
use std::sync::Arc;

/// A claimed curve `f(x)`: a [`Form`] of the fits (the reports fit it too), a closed form
/// written in Rust, or a user's expression with its variables bound.
#[derive(Clone)]
pub struct Curve {
    name: String,
    f: Arc<dyn Fn(f64) -> f64 + Send + Sync>,
    form: Option<Form>,
}

impl Curve {
    /// The form, named in the claim's variable `var` (`log n`, `N`).
    pub fn form(form: Form, var: &str) -> Self {
        Curve { name: form.name().replace('x', var), f: Arc::new(move |x| form.eval(x)), form: Some(form) }
    }

    /// A closed form, as the report names it.
    pub fn closed(name: &str, f: fn(f64) -> f64) -> Self {
        Curve { name: name.into(), f: Arc::new(f), form: None }
    }

    /// Its value at `x`.
    pub fn eval(&self, x: f64) -> f64 {
        (self.f)(x)
    }

    /// Its name in evidence and reports.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The [`Form`] it is, if it is one.
    pub fn as_form(&self) -> Option<Form> {
        self.form
    }
}

impl std::fmt::Debug for Curve {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Curve({})", self.name)
    }
}

/// How a rule on trials estimates the mean at each point: [`verdict::estimates`], or a stratified
/// estimate; `Err` is the judgement when no mean can be estimated (censored trials, say).
pub type EstimateMeans<'a> = &'a dyn Fn(&[Point]) -> Result<Vec<Estimate>, Judgement>;

/// The rule that decides a claim on measured points: which rule of [`crate::verdict`] or
/// [`crate::growth`] applies, with what it needs. A reproduction's claim holds one
/// (`claims::Rule::Points`), a user's claim is parsed into one ([`ClaimText::rule`]), and both
/// are judged by [`Rule::judge`] (trials) or [`Rule::judge_log`] (estimates of log means).
#[derive(Clone, Debug)]
pub enum Rule {
    /// The mean grows at most (or at least) like the curve ([`growth`]).
    Growth {
        /// `O` or `Omega`.
        bound: Bound,
        /// The claimed curve.
        curve: Curve,
    },
    /// `Theta`: both bounds; the worse verdict.
    Theta(Curve),
    /// The mean equals the curve ([`verdict::exact_mean`]), with the exact law's variance and
    /// third cumulant at x where known.
    ExactMean {
        /// The claimed mean.
        curve: Curve,
        /// The exact law's moments.
        moments: Option<fn(f64) -> Moments>,
    },
    /// `Omega(e^(rate x))`: the logarithm of the mean grows at least at `rate`
    /// ([`verdict::exponential_at_least`]).
    ExponentialAtLeast {
        /// The claimed rate.
        rate: f64,
    },
    /// The experiment does not meet the claim's hypotheses (`reason`): the growth rate of the
    /// mean is reported and the verdict is inconclusive ([`verdict::rate_only`]).
    RateOnly {
        /// Why the experiment cannot decide the claim.
        reason: String,
    },
}

impl Rule {
    /// Judges the rule on trials gathered into `points`, the growth rules on the means `means`
    /// estimates from them ([`verdict::estimates`], or a stratified estimate); returns the
    /// judgement and the estimates a growth rule judged.
    pub fn judge(&self, points: &[Point], means: EstimateMeans<'_>) -> (Judgement, Vec<Estimate>) {
        let growth_of = |bound: Bound, curve: &Curve| match means(points) {
            Ok(estimates) => (growth(&estimates, bound, &|x| curve.eval(x), curve.name()), estimates),
            Err(judgement) => (judgement, Vec::new()),
        };
        match self {
            Rule::Growth { bound, curve } => growth_of(*bound, curve),
            Rule::Theta(curve) => {
                let (at_most, estimates) = growth_of(Bound::AtMost, curve);
                (verdict::worst(&[at_most, growth_of(Bound::AtLeast, curve).0]), estimates)
            }
            Rule::ExactMean { curve, moments } => (
                verdict::exact_mean(points, |x| curve.eval(x), moments.as_ref().map(|m| m as &dyn Fn(f64) -> Moments)),
                Vec::new(),
            ),
            Rule::ExponentialAtLeast { .. } | Rule::RateOnly { .. } => match verdict::log_points(points) {
                Some(points) => (self.judge_log(&points), Vec::new()),
                None => (
                    Judgement::new(
                        Verdict::Inconclusive,
                        "some trials were censored (or too few ended): no mean to fit",
                    ),
                    Vec::new(),
                ),
            },
        }
    }

    /// Judges the rule on estimates of the log mean (the splitting estimator's): the exponential
    /// rules; any other reports the rate only.
    pub fn judge_log(&self, points: &[LogPoint]) -> Judgement {
        match self {
            Rule::ExponentialAtLeast { rate } => verdict::exponential_at_least(points, *rate),
            Rule::RateOnly { reason } => verdict::rate_only(points, reason),
            _ => verdict::rate_only(points, "the claim's rule does not apply to estimates"),
        }
    }
}

/// An arithmetic expression of a claim.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A number.
    Number(f64),
    /// A variable: the swept one or a fixed one.
    Variable(String),
    /// `-a`.
    Negate(Box<Expr>),
    /// `a op b`.
    Binary(char, Box<Expr>, Box<Expr>),
    /// A function applied to an argument.
    Call(Function, Box<Expr>),
}

/// The functions a claim may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Function {
    /// `log`, `ln`: the natural logarithm.
    Ln,
    /// `lg`, `log2`.
    Log2,
    /// `log10`.
    Log10,
    /// `sqrt`.
    Sqrt,
    /// `exp`.
    Exp,
    /// `ceil`: the integer steps a protocol's constants take (`ceil(log n)^2`).
    Ceil,
    /// `floor`.
    Floor,
}

impl Function {
    fn named(name: &str) -> Option<Self> {
        Some(match name {
            "log" | "ln" => Function::Ln,
            "lg" | "log2" => Function::Log2,
            "log10" => Function::Log10,
            "sqrt" => Function::Sqrt,
            "exp" => Function::Exp,
            "ceil" => Function::Ceil,
            "floor" => Function::Floor,
            _ => return None,
        })
    }

    fn apply(self, x: f64) -> f64 {
        match self {
            Function::Ln => x.ln(),
            Function::Log2 => x.log2(),
            Function::Log10 => x.log10(),
            Function::Sqrt => x.sqrt(),
            Function::Exp => x.exp(),
            Function::Ceil => x.ceil(),
            Function::Floor => x.floor(),
        }
    }
}

/// A variable of an expression that has no value: neither the swept one nor a fixed one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' has no value")]
pub struct NoValue(pub String);

impl Expr {
    /// The value with `x` for the variable `var` and `fixed` for the others; `Err` names a
    /// variable with no value.
    pub fn eval(&self, var: &str, x: f64, fixed: &[(String, f64)]) -> std::result::Result<f64, NoValue> {
        Ok(match self {
            Expr::Number(v) => *v,
            Expr::Variable(name) if name == var => x,
            Expr::Variable(name) if name == "e" => std::f64::consts::E,
            Expr::Variable(name) => match fixed.iter().find(|(k, _)| k == name) {
                Some((_, v)) => *v,
                None => return Err(NoValue(name.clone())),
            },
            Expr::Negate(a) => -a.eval(var, x, fixed)?,
            Expr::Binary(op, a, b) => {
                let (a, b) = (a.eval(var, x, fixed)?, b.eval(var, x, fixed)?);
                match op {
                    '+' => a + b,
                    '-' => a - b,
                    '*' => a * b,
                    '/' => a / b,
                    _ => a.powf(b),
                }
            }
            Expr::Call(f, a) => f.apply(a.eval(var, x, fixed)?),
        })
    }

    /// `Some(inner)` when this is `e^(inner)` or `exp(inner)`.
    fn exponent(&self) -> Option<&Expr> {
        match self {
            Expr::Binary('^', base, inner) if **base == Expr::Variable("e".into()) => Some(inner),
            Expr::Call(Function::Exp, inner) => Some(inner),
            _ => None,
        }
    }
}

/// What a claim says, as written: its expressions not yet bound to the data's variables
/// ([`ClaimText::rule`] makes it the [`Rule`] that judges it).
#[derive(Clone, Debug, PartialEq)]
pub enum Claimed {
    /// `O(f)` or `Omega(f)`.
    Growth(Bound, Expr),
    /// `Theta(f)`: `O(f)` and `Omega(f)`.
    Theta(Expr),
    /// `= f`.
    Exact(Expr),
    /// `Omega(e^(g))`, `g` linear in the swept variable.
    Exponential(Expr),
}

/// A parsed claim with its text.
#[derive(Clone, Debug, PartialEq)]
pub struct ClaimText {
    /// The claim as written.
    pub text: String,
    /// What it says.
    pub claimed: Claimed,
}

fn bad(text: &str, reason: impl Into<String>) -> Error {
    Error::Claim { claim: text.trim().into(), reason: reason.into() }
}

impl ClaimText {
    /// Parses a claim (see the module docs).
    pub fn parse(text: &str) -> Result<Self> {
        let trimmed = text.trim();
        let usage = "write it as in the papers: O(log n), Omega(n^2), Theta(n log n), = (n-1)^2 or Omega(e^N)";
        let claimed = if let Some(rest) = trimmed.strip_prefix('=') {
            Claimed::Exact(parse_expr(text, rest)?)
        } else {
            let open = trimmed.find('(').ok_or_else(|| bad(text, usage))?;
            let (head, rest) = (trimmed[..open].trim(), &trimmed[open..]);
            let inner = rest
                .strip_prefix('(')
                .and_then(|r| r.strip_suffix(')'))
                .filter(|inner| balanced(inner))
                .ok_or_else(|| bad(text, format!("the bound's parentheses do not match; {usage}")))?;
            let expr = parse_expr(text, inner)?;
            match head {
                "O" => Claimed::Growth(Bound::AtMost, expr),
                "Omega" | "Ω" if expr.exponent().is_some() => {
                    Claimed::Exponential(expr.exponent().cloned().expect("checked"))
                }
                "Omega" | "Ω" => Claimed::Growth(Bound::AtLeast, expr),
                "Theta" | "Θ" => Claimed::Theta(expr),
                _ => {
                    return Err(bad(
                        text,
                        format!("'{head}' is no bound: use O, Omega or Theta, or = for an exact mean"),
                    ));
                }
            }
        };
        Ok(ClaimText { text: trimmed.to_string(), claimed })
    }

    /// Checks a claim against the data before anything runs: every variable but `var` (and `e`)
    /// has a value in `fixed`, and an exponential bound's exponent is linear in `var`.
    pub fn check_variables(&self, var: &str, fixed: &[(String, f64)]) -> Result<()> {
        let expr = match &self.claimed {
            Claimed::Growth(_, e) | Claimed::Theta(e) | Claimed::Exact(e) | Claimed::Exponential(e) => e,
        };
        // Evaluating at a test point finds every variable without a value.
        expr.eval(var, 2.0, fixed).map_err(|NoValue(name)| {
            bad(
                &self.text,
                format!(
                    "'{name}' has no value: the swept variable is {var}{}; a claim's other variables must be parameters \
                     held fixed",
                    if fixed.is_empty() {
                        String::new()
                    } else {
                        format!(" and {} are fixed", fixed.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(", "))
                    }
                ),
            )
        })?;
        if let Claimed::Exponential(e) = &self.claimed {
            self.rate(e, var, fixed)?;
        }
        Ok(())
    }

    /// The rate `r` of an exponential claim's exponent `r x`; `Err` unless it is linear in `x`.
    fn rate(&self, exponent: &Expr, var: &str, fixed: &[(String, f64)]) -> Result<f64> {
        let g = |x: f64| exponent.eval(var, x, fixed).unwrap_or(f64::NAN);
        let rate = g(1.0) - g(0.0);
        let through_zero = g(0.0).abs() <= 1e-12;
        if rate.is_finite() && through_zero && ((g(3.0) - g(1.0)) / 2.0 - rate).abs() <= 1e-9 * rate.abs().max(1.0) {
            Ok(rate)
        } else {
            Err(bad(
                &self.text,
                format!("the exponent must be a rate times {var}: for example Omega(e^(0.5 {var})), linear in {var}"),
            ))
        }
    }

    /// The rule the claim is judged by, its curve's variables bound: `var` the swept one, `fixed`
    /// the others' values.
    pub fn rule(&self, var: &str, fixed: &[(String, f64)]) -> Result<Rule> {
        self.check_variables(var, fixed)?;
        let curve = |e: &Expr| {
            let (e, var, fixed) = (e.clone(), var.to_string(), fixed.to_vec());
            Curve {
                name: inner_text(&self.text).unwrap_or_else(|| format!("{e:?}")),
                f: Arc::new(move |x| e.eval(&var, x, &fixed).unwrap_or(f64::NAN)),
                form: None,
            }
        };
        Ok(match &self.claimed {
            Claimed::Growth(bound, e) => Rule::Growth { bound: *bound, curve: curve(e) },
            Claimed::Theta(e) => Rule::Theta(curve(e)),
            Claimed::Exact(e) => Rule::ExactMean { curve: curve(e), moments: None },
            Claimed::Exponential(e) => Rule::ExponentialAtLeast { rate: self.rate(e, var, fixed)? },
        })
    }

    /// Judges the claim on `points` (one per value of the swept variable `var`; `fixed` gives the
    /// other variables' values) by its [`Rule`], as the reproduction's claims are judged.
    pub fn judge(&self, points: &[Point], var: &str, fixed: &[(String, f64)]) -> Result<Judgement> {
        Ok(self.rule(var, fixed)?.judge(points, &verdict::estimates).0)
    }
}

/// The text inside a bound's parentheses, as the evidence names the claimed form.
fn inner_text(text: &str) -> Option<String> {
    let open = text.find('(')?;
    text[open + 1..].strip_suffix(')').map(|s| s.trim().to_string())
}

fn balanced(text: &str) -> bool {
    let mut depth = 0i32;
    for c in text.chars() {
        depth += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Number(f64),
    Name(String),
    Op(char),
}

fn tokens(claim: &str, text: &str) -> Result<Vec<Token>> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || c == '.' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            let number: String = chars[start..i].iter().collect();
            out.push(Token::Number(number.parse().map_err(|_| bad(claim, format!("'{number}' is not a number")))?));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Token::Name(chars[start..i].iter().collect()));
        } else if "+-*/^()".contains(c) {
            out.push(Token::Op(c));
            i += 1;
        } else {
            return Err(bad(claim, format!("'{c}' is not allowed; use numbers, variables, + - * / ^, ( ) and log")));
        }
    }
    Ok(out)
}

fn parse_expr(claim: &str, text: &str) -> Result<Expr> {
    let tokens = tokens(claim, text)?;
    if tokens.is_empty() {
        return Err(bad(claim, "the expression is empty"));
    }
    let mut parser = Parser { claim, tokens, at: 0 };
    let expr = parser.sum()?;
    match parser.tokens.get(parser.at) {
        None => Ok(expr),
        Some(t) => Err(bad(claim, format!("unexpected {t:?} after a complete expression"))),
    }
}

struct Parser<'a> {
    claim: &'a str,
    tokens: Vec<Token>,
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn eat(&mut self, op: char) -> bool {
        let found = self.peek() == Some(&Token::Op(op));
        if found {
            self.at += 1;
        }
        found
    }

    fn sum(&mut self) -> Result<Expr> {
        let mut left = self.product()?;
        while let Some(Token::Op(op @ ('+' | '-'))) = self.peek().cloned() {
            self.at += 1;
            left = Expr::Binary(op, Box::new(left), Box::new(self.product()?));
        }
        Ok(left)
    }

    /// Factors joined by `*`, `/` or juxtaposition.
    fn product(&mut self) -> Result<Expr> {
        let mut left = self.power()?;
        loop {
            let op = match self.peek() {
                Some(Token::Op(op @ ('*' | '/'))) => {
                    let op = *op;
                    self.at += 1;
                    op
                }
                Some(Token::Number(_) | Token::Name(_) | Token::Op('(')) => '*',
                _ => return Ok(left),
            };
            left = Expr::Binary(op, Box::new(left), Box::new(self.power()?));
        }
    }

    /// `unary (^ power)?`, right-associative.
    fn power(&mut self) -> Result<Expr> {
        let base = self.unary()?;
        if self.eat('^') { Ok(Expr::Binary('^', Box::new(base), Box::new(self.power()?))) } else { Ok(base) }
    }

    fn unary(&mut self) -> Result<Expr> {
        if self.eat('-') { Ok(Expr::Negate(Box::new(self.unary()?))) } else { self.primary() }
    }

    fn primary(&mut self) -> Result<Expr> {
        match self.peek().cloned() {
            Some(Token::Number(v)) => {
                self.at += 1;
                Ok(Expr::Number(v))
            }
            Some(Token::Op('(')) => {
                self.at += 1;
                let inner = self.sum()?;
                if !self.eat(')') {
                    return Err(bad(self.claim, "a parenthesis is not closed"));
                }
                Ok(inner)
            }
            Some(Token::Name(name)) => {
                self.at += 1;
                let Some(function) = Function::named(&name) else { return Ok(Expr::Variable(name)) };
                // `log^2 n` is `(log n)^2`.
                let power = if self.eat('^') { Some(self.unary()?) } else { None };
                let argument = self.power_free()?;
                let call = Expr::Call(function, Box::new(argument));
                Ok(match power {
                    Some(p) => Expr::Binary('^', Box::new(call), Box::new(p)),
                    None => call,
                })
            }
            other => Err(bad(self.claim, format!("expected a number, a variable or '(' but found {other:?}"))),
        }
    }

    /// A function's argument: a parenthesis, or the next factor with its own power (`log n^2` is
    /// `log(n^2)`, `log log n` is `log(log n)`).
    fn power_free(&mut self) -> Result<Expr> {
        match self.peek() {
            Some(Token::Op('(')) => self.primary(),
            Some(_) => self.power(),
            None => Err(bad(self.claim, "a function has no argument")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Verdict;

    fn value(text: &str, x: f64) -> f64 {
        let claim = ClaimText::parse(&format!("O({text})")).unwrap();
        let Claimed::Growth(_, e) = claim.claimed else { panic!() };
        e.eval("n", x, &[("N".into(), 8.0), ("c".into(), 0.5)]).unwrap()
    }

    #[test]
    fn expressions_read_as_in_the_papers() {
        let n = 1000.0f64;
        assert_eq!(value("log n", n), n.ln());
        assert_eq!(value("log^2 n", n), n.ln().powi(2));
        assert_eq!(value("n log n", n), n * n.ln());
        assert_eq!(value("N log n", n), 8.0 * n.ln());
        assert_eq!(value("n^2", n), n * n);
        assert_eq!(value("(n-1)^2", n), (n - 1.0).powi(2));
        assert_eq!(value("2 n^0.5 + 3", n), 2.0 * n.sqrt() + 3.0);
        assert_eq!(value("lg n", 1024.0), 10.0);
        assert_eq!(value("log log n", n), n.ln().ln());
        assert_eq!(value("n/log(n)", n), n / n.ln());
        assert_eq!(value("c n^(10 c)", 2.0), 0.5 * 2f64.powf(5.0));
        assert_eq!(value("-n + 2n", n), n);
        assert_eq!(value("log n ceil(log n)^2", n), n.ln() * n.ln().ceil().powi(2));
    }

    #[test]
    fn kinds_of_claims() {
        assert!(matches!(ClaimText::parse("= (n-1)^2").unwrap().claimed, Claimed::Exact(_)));
        assert!(matches!(ClaimText::parse("Omega(n^2)").unwrap().claimed, Claimed::Growth(Bound::AtLeast, _)));
        assert!(matches!(ClaimText::parse("Θ(n)").unwrap().claimed, Claimed::Theta(_)));
        assert!(matches!(ClaimText::parse("Omega(e^N)").unwrap().claimed, Claimed::Exponential(_)));
        assert!(matches!(ClaimText::parse("Omega(exp(0.5 N))").unwrap().claimed, Claimed::Exponential(_)));
    }

    #[test]
    fn bad_claims_say_what_is_wrong() {
        for (text, says) in [
            ("log n", "write it as in the papers"),
            ("Q(n)", "'Q' is no bound"),
            ("O(n", "parentheses do not match"),
            ("O(n % 2)", "'%' is not allowed"),
            ("O()", "empty"),
            ("O(log)", "no argument"),
            ("O(n))", "parentheses"),
        ] {
            let error = ClaimText::parse(text).unwrap_err().to_string();
            assert!(error.contains(says), "{text}: {error}");
            assert!(error.starts_with(&format!("claim '{text}': ")) && !error.contains("--"), "{text}: {error}");
        }
        let claim = ClaimText::parse("O(N log n)").unwrap();
        let error = claim.check_variables("n", &[]).unwrap_err().to_string();
        assert!(error.contains("'N' has no value"), "{error}");
        assert!(claim.check_variables("n", &[("N".into(), 100.0)]).is_ok());
    }

    fn points(mean: impl Fn(f64) -> f64) -> Vec<Point> {
        [10.0, 20.0, 40.0, 80.0]
            .iter()
            .map(|&x| {
                let m = mean(x);
                let values = (0..40).map(|i| m * (0.98 + 0.001 * i as f64)).collect();
                Point { x, values, censored: 0, horizon: f64::INFINITY }
            })
            .collect()
    }

    #[test]
    fn judged_by_the_reproductions_rules() {
        let quadratic = points(|n| (n - 1.0).powi(2));
        let judge = |text: &str| ClaimText::parse(text).unwrap().judge(&quadratic, "n", &[]).unwrap().verdict;
        assert_eq!(judge("= (n-1)^2"), Verdict::Consistent);
        assert_eq!(judge("= 2 (n-1)^2"), Verdict::Inconsistent);
        assert_eq!(judge("Theta(n^2)"), Verdict::Consistent);
        assert_eq!(judge("O(n)"), Verdict::Inconsistent);
        assert_eq!(judge("Omega(n^3)"), Verdict::Inconsistent);
        let exponential = points(|n| (0.5 * n).exp());
        let judge = |text: &str| ClaimText::parse(text).unwrap().judge(&exponential, "n", &[]);
        assert_eq!(judge("Omega(e^(0.25 n))").unwrap().verdict, Verdict::Consistent);
        assert_eq!(judge("Omega(e^n)").unwrap().verdict, Verdict::Inconsistent);
        assert!(judge("Omega(e^(n^2))").unwrap_err().to_string().contains("linear"));
    }
}
