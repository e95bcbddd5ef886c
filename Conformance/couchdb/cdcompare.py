"""couchdiff's comparison of a scenario's normalised steps with its golden: a hard difference fails the
scenario, a soft one (an error's reason, a warning) is reported only.
"""

import json


# JSON's types as Python holds them; bool comes before int, which it is a subclass of.
_JSON_TYPES = ((bool, "bool"), (int, "int"), (float, "float"), (str, "string"), (list, "array"), (dict, "object"))


def _jtype(v):
    if v is None:
        return "null"
    for kind, name in _JSON_TYPES:
        if isinstance(v, kind):
            return name
    return type(v).__name__


def _short(v, n=90):
    s = json.dumps(v, ensure_ascii=False, sort_keys=True)
    return s if len(s) <= n else s[: n - 3] + "..."


def compare_values(exp, got, path, hard, soft, strict_reason=False):
    if path == "body.warning" or (path.endswith((".~seq_check.order", ".~seq_check.last_vs_last_row",
                                                 ".~update_seq_change")) and got == "n/a"):
        if exp != got:
            soft.append(f"{path}: expected {_short(exp)}, got {_short(got)}")
        return
    te, tg = _jtype(exp), _jtype(got)
    if te != tg:
        hard.append(f"{path}: expected {te} {_short(exp)}, got {tg} {_short(got)}")
        return
    if te == "object":
        is_err = "error" in exp
        for k in exp:
            if k not in got:
                if k == "warning" and path == "body":
                    soft.append(f"{path}.warning: missing (expected {_short(exp[k])})")
                else:
                    hard.append(f"{path}: missing key {k!r} (expected {_short(exp[k])})")
                continue
            if k == "reason" and is_err and not strict_reason:
                if exp[k] != got[k]:
                    soft.append(f"{path}.reason: expected {_short(exp[k])}, got {_short(got[k])}")
                continue
            compare_values(exp[k], got[k], f"{path}.{k}", hard, soft, strict_reason)
        for k in got:
            if k not in exp:
                if k == "warning" and path == "body":
                    soft.append(f"{path}.warning: unexpected {_short(got[k])}")
                else:
                    hard.append(f"{path}: unexpected key {k!r} = {_short(got[k])}")
        return
    if te == "array":
        if len(exp) != len(got):
            hard.append(f"{path}: expected {len(exp)} items, got {len(got)}: "
                        f"expected {_short(exp, 160)}, got {_short(got, 160)}")
            return
        for i, (a, b) in enumerate(zip(exp, got)):
            compare_values(a, b, f"{path}[{i}]", hard, soft, strict_reason)
        return
    if te == "float" and repr(exp) != repr(got):   # -0.0 vs 0.0, 5e-324 vs 0.0
        hard.append(f"{path}: expected {exp!r}, got {got!r}")
        return
    if exp != got:
        hard.append(f"{path}: expected {_short(exp)}, got {_short(got)}")


def compare_steps(golden_steps, got_steps):
    """Returns (hard_diffs, soft_notes) as lists of strings."""
    hard, soft = [], []
    for i, exp in enumerate(golden_steps):
        if i >= len(got_steps):
            hard.append(f"step {i + 1} {exp['req']}: not reached")
            break
        got = got_steps[i]
        h, s = [], []
        pre = f"step {i + 1} {exp['req']}"
        if exp["status"] != got["status"]:
            h.append(f"status: expected {exp['status']}, got {got['status']}")
        compare_values(exp.get("headers", {}), got.get("headers", {}), "headers", h, s)
        compare_values(exp.get("body"), got.get("body"), "body", h, s,
                       strict_reason=exp.get("strict_reason", False))
        hard.extend(f"{pre}: {d}" for d in h)
        soft.extend(f"{pre}: {d}" for d in s)
    if len(got_steps) > len(golden_steps):
        hard.append(f"{len(got_steps) - len(golden_steps)} extra step(s) beyond the golden")
    return hard, soft
