"""Statements a loop needs: the update that ends a ``while`` loop, the flush after one, and a
statement indented one block too deep.

Two bug shapes that no one-token edit fixes and that no sibling block holds a copy of:

- **A loop that never ends.** The names a ``while`` condition reads are never rebound in
  its body (``while n: total += n % 10`` with no ``n //= 10``). The missing update is
  added at the end of the body: ``n //= k`` where the body divides or takes ``n % k``,
  ``n += 1`` / ``n -= 1`` by the comparison's direction, ``n = n[1:]`` for a sequence.
  A loop that walks a chain (``while node:`` / ``while cursor is not None:``) follows a
  link instead: ``cursor = page["next"]`` (a value the body fetched, one of the module's
  dict keys) or ``node = node.next`` (one of its attributes), links named like "next"
  first. Infinite loops whose condition never changes are the commonest kind in the
  study behind Infinitel (Marcote & Monperrus, "Automatic Repair of Infinite Loops", 2015).
- **A last batch that is never emitted.** A loop body that emits an accumulator and then
  resets it (``if len(batch) == size: out.append(batch); batch = []``) leaves what is
  collected after the last reset behind; the emit is added after the loop, guarded by
  the accumulator (``if batch: out.append(batch)``).

- **A statement indented one block too deep.** The last statement of an ``if`` or loop
  body belongs after it (``t += step`` inside ``if clash:`` stops the loop advancing;
  ``return total`` inside the ``for`` returns after one item): it is moved out, one
  indentation level up.

- **A result computed and thrown away.** An expression statement whose value is lost:
  ``delay * factor`` (meant ``delay *= factor``; a ``while delay < cap`` loop then never
  ends), ``name.strip()`` on a string (meant ``name = name.strip()``). Linters flag the
  statement (pylint W0104 "pointless-statement", flake8-bugbear B018); the fix assigns
  the result back to the name it was computed from.

- **A link set one way only.** In a doubly linked structure a method links a node forward
  (``self.current.next = page``) and forgets the link back (``page.prev = self.current``):
  the mirror assignment is added before it, when the module's nodes have the mirror
  attribute (``prev`` set somewhere) and the function never assigns it on that node.

- **A function that falls off its end.** A function declared to return a value (a return
  annotation other than ``None``, or a ``return value`` elsewhere in it) whose last
  statement neither returns nor raises gives ``None`` on that path: mypy reports it as
  "Missing return statement", pylint as R1710 "inconsistent-return-statements". A
  ``return name`` is added at the end, for the names the function assigns (the last
  assigned first). Where the value needs more than the name (``"+" + digits``), the
  candidate is a near miss the model's feedback samples continue from.

These are "missing"/"misplaced statement" bugs, which single-statement studies leave out of their
pattern tables (TSSB-3M, Richter & Wehrheim, MSR 2022, counts only changed statements),
so their priors are hand-set below the taxonomy's patterns
(:data:`codur.mutation.patterns.HAND_PRIORS`).
"""

from __future__ import annotations

import ast

from codur.mutation.patterns import PRIOR
from codur.mutation.site import SYM, MutationSite, short

_EMPTY = ("[]", "{}", '""', "''", "0", "set()", "list()", "dict()")
#: Methods of str (and bytes) that return a new value: a call as a statement loses it.
_NEW_VALUE_METHODS = frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "title", "capitalize", "casefold",
                                "replace", "removeprefix", "removesuffix", "zfill", "ljust", "rjust", "center",
                                "expandtabs", "swapcase", "format"})
#: An attribute of a linked node -> the attribute that links back.
MIRRORS = {"next": "prev", "prev": "next", "succ": "pred", "pred": "succ", "next_node": "prev_node",
           "prev_node": "next_node", "previous": "next", "after": "before", "before": "after"}
_AUGMENTABLE = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift,
                ast.BitOr, ast.BitXor, ast.BitAnd, ast.MatMult)


def _rebound(body: list[ast.stmt]) -> set[str]:
    """Names assigned, augmented, deleted, iterated or mutated by a method call in ``body``."""
    out: set[str] = set()
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(
                node.func.value, ast.Name):
            out.add(node.func.value.id)  # xs.pop(), queue.popleft(), it.advance() ...
        elif isinstance(node, (ast.Return, ast.Break, ast.Raise)):
            out.add("")  # the loop can end from inside: not a loop that never ends
    return out


#: Link names that say "the next one": their follow-ups are tried first.
_LINK_WORDS = ("next", "parent", "succ", "tail", "rest", "link", "cursor", "after", "child")


def _walks_a_chain(name: str, test: ast.expr) -> bool:
    """``while name:`` or ``while name is not None:`` (``!= None``)."""
    if isinstance(test, ast.Name):
        return test.id == name
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == name
            and len(test.ops) == 1 and isinstance(test.ops[0], (ast.IsNot, ast.NotEq))
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None)


def linky(word: str) -> bool:
    """Whether ``word`` names a link (:data:`_LINK_WORDS`)."""
    return any(w in word.lower() for w in _LINK_WORDS)


def _follow(name: str, loop: ast.While, ctx: MutationSite) -> list[str]:
    """``name = v[key]`` / ``name = v.attr``: ``v`` a name the body binds or ``name`` itself,
    ``key`` a string key of the module's dicts and subscripts (or "next" when none is
    link-like and the body indexes ``v`` by string), ``attr`` a link-like attribute the
    module reads; link-like names first, at most 4."""
    held = [n.id for stmt in loop.body for n in ast.walk(stmt)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id != name]
    tree = ctx.src.tree
    keys = [k.value for n in ast.walk(tree) if isinstance(n, ast.Dict) for k in n.keys
            if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    keys += [n.slice.value for n in ast.walk(tree) if isinstance(n, ast.Subscript)
             and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str)]
    attrs = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
             and linky(n.attr)]

    keyed = {n.value.id for n in ast.walk(loop) if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)
             and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str)}
    if keyed and not any(linky(k) for k in keys):
        keys.append("next")  # a page or record from elsewhere: "next" is the usual name of its link
    out = [f"{name} = {v}[{k!r}]".replace("'", '"') for v in dict.fromkeys(held) if v in keyed
           for k in dict.fromkeys(keys)]
    out += [f"{name} = {v}.{a}" for v in (*dict.fromkeys(held), name) for a in dict.fromkeys(attrs)]
    out.sort(key=lambda text: not linky(text.split("=", 1)[1]))  # stable: the body's values first
    return out[:4]


def _updates(name: str, loop: ast.While, ctx: MutationSite) -> list[str]:
    """The likeliest missing updates of ``name``, best first."""
    if _walks_a_chain(name, loop.test):
        follow = _follow(name, loop, ctx)
        if follow:
            return follow
    divisors = [ctx.src.seg(n.right) for stmt in loop.body for n in ast.walk(stmt)
                if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Mod, ast.FloorDiv))
                and isinstance(n.left, ast.Name) and n.left.id == name]
    out = [f"{name} //= {d}" for d in dict.fromkeys(divisors)]
    directions = [op for n in ast.walk(loop.test) if isinstance(n, ast.Compare) for op in n.ops]
    kinds = ctx.facts.kinds_named(name, ctx.facts.owner.get(loop))
    if kinds & {"seq", "str"}:
        out.append(f"{name} = {name}[1:]")
    if any(isinstance(op, (ast.Gt, ast.GtE, ast.NotEq)) for op in directions) or not directions:
        out += [f"{name} -= 1", f"{name} += 1"]
    else:
        out += [f"{name} += 1", f"{name} -= 1"]
    return out


def advance_loop_variable(loop: ast.While, ctx: MutationSite) -> None:
    """A ``while`` loop whose condition's names are never rebound in its body (and that no
    ``break``/``return`` leaves): add the update of one of them at the end of the body."""
    called = {n.func.id for n in ast.walk(loop.test) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    reads = [n.id for n in ast.walk(loop.test) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
             and n.id not in called]  # `while not ready()` waits on a call, not on a variable
    if not reads or _rebound(loop.body) & (set(reads) | {""}):
        return
    last = loop.body[-1]
    span = ctx.src.line_span(last)
    if span is None:
        return
    indent, newline = ctx.src.indent(loop.body[0]), _newline(ctx, last)
    texts = [t for name in dict.fromkeys(reads) if name not in ctx.facts.functions for t in _updates(name, loop, ctx)]
    for i, text in enumerate(texts[:3]):
        ctx.add("advance_loop_variable", loop, [(span[1], span[1], f"{indent}{text}{newline}")],
                PRIOR["advance_loop_variable"] * 0.9 ** i, line=loop.lineno,
                description=f"added `{text}` at the end of the loop (its condition never changed)")


def _newline(ctx: MutationSite, stmt: ast.stmt) -> str:
    line = ctx.src.lines[stmt.end_lineno - 1]
    return line[len(line.rstrip("\r\n")):] or "\n"


def _emit_then_reset(block: list[ast.stmt], ctx: MutationSite) -> tuple[str, list[ast.stmt]] | None:
    """(accumulator, the one-line statements that emit it) when ``block`` emits an
    accumulator and then resets it to an empty value."""
    for k, stmt in enumerate(block):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and ctx.src.seg(stmt.value) in _EMPTY):
            continue
        acc = stmt.targets[0].id
        emits = [s for s in block[:k] if s.lineno == s.end_lineno and any(
            isinstance(n, ast.Name) and n.id == acc and isinstance(n.ctx, ast.Load) for n in ast.walk(s))]
        if emits:
            return acc, emits
    for stmt in block:
        for branch in (stmt.body, stmt.orelse) if isinstance(stmt, ast.If) else ():
            found = _emit_then_reset(branch, ctx)  # elif branches too
            if found:
                return found
    return None


def flush_after_loop(loop: ast.For | ast.AsyncFor | ast.While, ctx: MutationSite) -> None:
    """A loop that emits and resets an accumulator inside its body: emit what is left after
    the loop, ``if acc:`` guarded (the last, partial batch)."""
    if loop.orelse:
        return
    found = _emit_then_reset(loop.body, ctx)
    span = ctx.src.line_span(loop)
    if found is None or span is None:
        return
    acc, emits = found
    indent, newline = ctx.src.indent(loop), _newline(ctx, loop)
    inner = indent + ("\t" if "\t" in ctx.src.indent(loop.body[0]) else "    ")
    body = "".join(f"{inner}{ctx.src.seg(s)}{newline}" for s in emits)
    text = f"{indent}if {acc}:{newline}{body}"
    ctx.add("flush_after_loop", loop, [(span[1], span[1], text)], PRIOR["flush_after_loop"],
            line=loop.lineno,
            description=f"added `if {acc}: {short(' / '.join(ctx.src.seg(s) for s in emits))}` after the loop")


def dedent_last_statement(node: ast.If | ast.For | ast.AsyncFor | ast.While, ctx: MutationSite) -> None:
    """The last statement of a body of two or more (no ``else``), moved one level out:
    after the ``if``, or after the loop."""
    if node.orelse or len(node.body) < 2:
        return
    last = node.body[-1]
    span = ctx.src.line_span(last)
    if span is None or isinstance(last, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.Try)):
        return
    inner, outer = ctx.src.indent(last), ctx.src.indent(node)
    if not inner.startswith(outer) or inner == outer:
        return
    text = ctx.src.text[span[0]:span[1]]
    moved = "".join(outer + line[len(inner):] if line.startswith(inner) else line
                    for line in text.splitlines(keepends=True))
    where = "if" if isinstance(node, ast.If) else "loop"
    ctx.add("dedent_last_statement", node, [(span[0], span[1], moved)], PRIOR["dedent_last_statement"],
            line=last.lineno, description=f"moved `{short(ctx.src.seg(last))}` out of the {where}")


def keep_discarded_result(node: ast.Expr, ctx: MutationSite) -> None:
    """An expression statement that computes a value from a name and loses it: assign it
    back (``x * k`` -> ``x *= k``; ``s.strip()`` -> ``s = s.strip()``)."""
    value = node.value
    if isinstance(value, ast.BinOp) and isinstance(value.left, ast.Name) and isinstance(value.op, _AUGMENTABLE):
        name = value.left.id
        text = f"{name} {SYM[type(value.op)]}= {ctx.src.seg(value.right)}"
    elif (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
          and isinstance(value.func.value, ast.Name) and value.func.attr in _NEW_VALUE_METHODS):
        name = value.func.value.id
        text = f"{name} = {ctx.src.seg(value)}"
    else:
        return
    ctx.replace(node, text, "keep_discarded_result", PRIOR["keep_discarded_result"])


def mirror_link(node: ast.Assign, ctx: MutationSite) -> None:
    """``a.next = b`` with no ``b.prev = a`` in the function, in a module whose nodes have a
    ``prev``: add the link back before the assignment (``a`` is read before it changes)."""
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Attribute):
        return
    target, value = node.targets[0], node.value
    back = MIRRORS.get(target.attr)
    if back is None or not isinstance(value, (ast.Name, ast.Attribute)):
        return
    stored = [n for n in ast.walk(ctx.src.tree) if isinstance(n, ast.Attribute) and n.attr == back
              and isinstance(n.ctx, ast.Store)]
    func = ctx.facts.owner.get(node)
    other, here = ctx.src.seg(value), ctx.src.seg(target.value)
    if not stored or func is None or any(ctx.src.seg(n.value) == other for n in stored
                                         if ctx.facts.owner.get(n) is func):
        return
    span = ctx.src.line_span(node)
    if span is None:
        return
    text = f"{other}.{back} = {here}"
    ctx.add("mirror_link", node, [(span[0], span[0], f"{ctx.src.indent(node)}{text}{_newline(ctx, node)}")],
            PRIOR["mirror_link"], line=node.lineno, description=f"added `{text}` (the link back)")


_NO_VALUE = frozenset({"None", "NoReturn", "Never", "typing.NoReturn", "typing.Never"})


def return_at_end(node: ast.stmt, ctx: MutationSite) -> None:
    """``node``, the last statement of a function declared to return a value, neither returns
    nor raises: add ``return name`` after it (the function's assigned names, last first, at
    most 3)."""
    func = ctx.parents.get(node)
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or func.body[-1] is not node:
        return
    if _ends([node]):
        return
    own = [n for n in ast.walk(func) if ctx.facts.owner.get(n) is func]
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own):
        return
    valued = any(isinstance(n, ast.Return) and n.value is not None for n in own)
    if (func.returns is None and not valued) or (func.returns is not None and ctx.src.seg(func.returns) in _NO_VALUE):
        return
    stores = sorted((n for n in own if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)),
                    key=lambda n: (n.lineno, n.col_offset))
    names = list(dict.fromkeys(n.id for n in reversed(stores)))[:3]
    span = ctx.src.line_span(node)
    if span is None:
        return
    indent, newline = ctx.src.indent(node), _newline(ctx, node)
    for i, name in enumerate(names):
        ctx.add("return_at_end", node, [(span[1], span[1], f"{indent}return {name}{newline}")],
                PRIOR["return_at_end"] * 0.9 ** i, line=node.lineno,
                description=f"added `return {name}` at the end of {func.name}() (it returned None there)")


def _ends(block: list[ast.stmt]) -> bool:
    """Whether control never falls off the end of ``block`` (a return, a raise, an ``if`` whose
    branches both end, a ``with`` or ``try`` body that ends, a ``while True``)."""
    if not block:
        return False
    last = block[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _ends(last.body) and _ends(last.orelse)
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return _ends(last.body)
    if isinstance(last, ast.Try):
        return (_ends(last.orelse) or _ends(last.body)) and all(_ends(h.body) for h in last.handlers)
    if isinstance(last, ast.While):
        return isinstance(last.test, ast.Constant) and bool(last.test.value)
    if isinstance(last, ast.Match):
        return any(isinstance(c.pattern, ast.MatchAs) and c.pattern.pattern is None for c in last.cases) and all(
            _ends(c.body) for c in last.cases)
    return False
