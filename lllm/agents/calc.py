"""Layer 3 · the `calc` tool: a safe arithmetic evaluator, `calc(text) -> str` or CalcError.

Read `react.py` next: it wraps `calc` as a Tool, and any CalcError becomes an observation the
model can read ("error: division by zero"), never a crash.

A model writes `Action: calc[17 * 23]`; whatever is between the brackets arrives here as
untrusted text. So nothing is ever executed: the text is split into tokens, a small
recursive-descent parser builds a tree of numbers and operators, and the tree is evaluated.
There are no names, no calls, no attributes — the grammar simply has no words for them.

    expr   := term   (("+" | "-") term)*
    term   := unary  (("*" | "/" | "//" | "%") unary)*
    unary  := ("-" | "+") unary | power
    power  := atom   (("**" | "^") unary)?        right-associative; "^" means power here
    atom   := NUMBER | "(" expr ")"

Bounded on purpose, so hostile input is refused quickly: at most MAX_CHARS characters,
MAX_DEPTH nested parentheses/unary signs, and integer powers whose result would exceed
MAX_RESULT_BITS bits are refused before they are computed.

Usage:

    >>> calc("17 * 23")
    '391'
    >>> calc("(2 + 3) ^ 2 / 10")
    '2.5'
    >>> try:
    ...     calc("__import__('os')")
    ... except CalcError as error:
    ...     print("error:", error)
    error: unexpected character '_' at position 0
"""

from __future__ import annotations

import math

__all__ = ["CalcError", "calc", "evaluate", "format_number", "parse", "tokenize"]

MAX_CHARS = 200          # a question's arithmetic fits easily; a flood of text does not
MAX_DEPTH = 30           # nesting beyond this is refused before Python's own recursion limit
MAX_RESULT_BITS = 4096   # 2 ** 4096 is about 1e1233: plenty for a calculator, cheap to compute


class CalcError(ValueError):
    """The expression cannot be evaluated; the message is written for the model to read."""


# ---- tokens ------------------------------------------------------------------------------------

OPERATORS = ("**", "//", "+", "-", "*", "/", "%", "^", "(", ")")


def tokenize(text: str) -> list[str]:
    """Split `text` into number and operator tokens; anything else is a CalcError."""
    if not isinstance(text, str):
        raise CalcError(f"expected text, got {type(text).__name__}")
    if len(text) > MAX_CHARS:
        raise CalcError(f"expression too long ({len(text)} characters, limit {MAX_CHARS})")
    tokens, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch.isdigit() and ch.isascii() or ch == ".":
            j = i
            while j < len(text) and (text[j].isdigit() and text[j].isascii() or text[j] == "."):
                j += 1
            tokens.append(text[i:j])
            i = j
        else:
            op = next((op for op in OPERATORS if text.startswith(op, i)), None)
            if op is None:
                raise CalcError(f"unexpected character {ch!r} at position {i}")
            tokens.append(op)
            i += len(op)
    if not tokens:
        raise CalcError("empty expression")
    return tokens


# ---- the parser: tokens -> tree -----------------------------------------------------------------
# A tree is a number (int or float) or a tuple (operator, left, right) / ("neg", operand).

class _Parser:
    def __init__(self, tokens: list[str]):
        self.tokens, self.pos, self.depth = tokens, 0, 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise CalcError("expression ends too early")
        self.pos += 1
        return token

    def nested(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise CalcError(f"expression nested too deeply (limit {MAX_DEPTH})")

    def expr(self):
        tree = self.term()
        while self.peek() in ("+", "-"):
            tree = (self.take(), tree, self.term())
        return tree

    def term(self):
        tree = self.unary()
        while self.peek() in ("*", "/", "//", "%"):
            tree = (self.take(), tree, self.unary())
        return tree

    def unary(self):
        if self.peek() in ("-", "+"):
            sign = self.take()
            self.nested()
            operand = self.unary()
            self.depth -= 1
            return ("neg", operand) if sign == "-" else operand
        return self.power()

    def power(self):
        base = self.atom()
        if self.peek() in ("**", "^"):
            self.take()
            self.nested()
            exponent = self.unary()
            self.depth -= 1
            return ("**", base, exponent)
        return base

    def atom(self):
        token = self.take()
        if token == "(":
            self.nested()
            tree = self.expr()
            self.depth -= 1
            if self.peek() != ")":
                raise CalcError("missing ')'")
            self.take()
            return tree
        if token[0].isdigit() or token[0] == ".":
            return _number(token)
        raise CalcError(f"expected a number, got {token!r}")


def _number(token: str) -> int | float:
    if token.count(".") > 1 or token == ".":
        raise CalcError(f"malformed number {token!r}")
    return float(token) if "." in token else int(token)


def parse(text: str):
    """The expression tree for `text` (see the grammar in the module docstring)."""
    parser = _Parser(tokenize(text))
    tree = parser.expr()
    if parser.peek() is not None:
        raise CalcError(f"unexpected {parser.peek()!r} after a complete expression")
    return tree


# ---- evaluation: tree -> number -----------------------------------------------------------------

# --8<-- [start:bounds]
def _power(base: int | float, exponent: int | float) -> int | float:
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0:
        if base.bit_length() * exponent > MAX_RESULT_BITS:
            raise CalcError(f"result too large (more than {MAX_RESULT_BITS} bits)")
    elif abs(exponent) > MAX_RESULT_BITS:
        raise CalcError(f"exponent too large (limit {MAX_RESULT_BITS})")
    if base == 0 and exponent < 0:
        raise CalcError("division by zero")
    result = base ** exponent
    if isinstance(result, complex):
        raise CalcError("result is not a real number")
    return result


def _apply(op: str, a: int | float, b: int | float) -> int | float:
    if op in ("/", "//", "%") and b == 0:
        raise CalcError("division by zero")
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return a // b if isinstance(a, int) and isinstance(b, int) and a % b == 0 else a / b
    if op == "//":
        return a // b
    if op == "%":
        return a % b
    return _power(a, b)


# --8<-- [end:bounds]
def evaluate(tree) -> int | float:
    """The value of a tree from `parse`; CalcError for division by zero, overflow and the like."""
    if isinstance(tree, (int, float)):
        return tree
    try:
        if tree[0] == "neg":
            return -evaluate(tree[1])
        value = _apply(tree[0], evaluate(tree[1]), evaluate(tree[2]))
    except OverflowError:
        raise CalcError("result too large") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise CalcError("result too large")
    return value


def format_number(value: int | float) -> str:
    """391 -> '391', 2.5 -> '2.5', 12.0 -> '12', 1/3 -> '0.3333333333'."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.10g}"
    return str(value)


def calc(text: str) -> str:
    """Evaluate arithmetic `text` safely and return the result as text."""
    return format_number(evaluate(parse(text)))


if __name__ == "__main__":
    for expression in ["17 * 23", "2 ** 10", "(1 + 2) * 3 - 4 / 8", "10 / 0", "9 ** 9 ** 9", "os.system('ls')"]:
        try:
            print(f"{expression:22} -> {calc(expression)}")
        except CalcError as error:
            print(f"{expression:22} -> error: {error}")
    # 17 * 23                -> 391
    # 2 ** 10                -> 1024
    # (1 + 2) * 3 - 4 / 8    -> 8.5
    # 10 / 0                 -> error: division by zero
    # 9 ** 9 ** 9            -> error: result too large (more than 4096 bits)
    # os.system('ls')        -> error: unexpected character 'o' at position 0
