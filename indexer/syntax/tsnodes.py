"""The TypeScript AST vocabulary of the partitioner (reference: the original's §2.3, §2.6).

JavaScript shares it: tree-sitter-javascript names its nodes as the TypeScript grammar does.
"""

from __future__ import annotations

from typing import Any

from monodex.indexer.syntax.vocab import Vocabulary, end_row, size

SPLIT_SCOPES = frozenset(
    {
        "program",
        "class_body",
        "declaration_list",
        "object_type",
        "interface_body",
        "statement_block",
        "switch_body",
        "object",
        "jsx_element",
        "jsx_fragment",
        "enum_body",
    }
)

CONDUITS = frozenset(
    {
        "export_statement",
        "class_declaration",
        "abstract_class_declaration",
        "class",
        "interface_declaration",
        "type_alias_declaration",
        "enum_declaration",
        "internal_module",
        "module",
        "function_declaration",
        "generator_function_declaration",
        "method_definition",
        "arrow_function",
        "function_expression",
        "function",
        "if_statement",
        "else_clause",
        "try_statement",
        "catch_clause",
        "finally_clause",
        "for_statement",
        "for_in_statement",
        "for_of_statement",
        "while_statement",
        "do_statement",
        "switch_statement",
        "switch_case",
        "switch_default",
        "return_statement",
        "throw_statement",
        "expression_statement",
        "lexical_declaration",
        "variable_declaration",
        "variable_declarator",
        "await_expression",
        "new_expression",
        "call_expression",
        "member_expression",
        "as_expression",
        "arguments",
        "pair",
        "jsx_expression",
        "parenthesized_expression",
        "ambient_declaration",
        "satisfies_expression",
        "assignment_expression",
    }
)

ALWAYS = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "class_declaration",
        "abstract_class_declaration",
        "interface_declaration",
        "type_alias_declaration",
        "enum_declaration",
        "export_statement",
        "method_definition",
        "switch_case",
        "switch_default",
        "jsx_element",
        "internal_module",
        "ambient_declaration",
        "abstract_method_signature",
        "method_signature",
    }
)

# The original's byte thresholds at its 6000-byte budget; they scale with the budget.
THRESHOLDS = {
    "public_field_definition": 50,
    "property_declaration": 50,
    "enum_assignment": 50,
    "pair": 200,
    "property_signature": 100,
    "expression_statement": 500,
    "if_statement": 400,
    "for_statement": 300,
    "for_in_statement": 300,
    "for_of_statement": 300,
}
NESTED_RICH = frozenset(
    {
        "arrow_function",
        "function_expression",
        "function",
        "object",
        "array",
        "jsx_element",
        "jsx_self_closing_element",
        "class",
    }
)

TYPE_OF = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "method_definition": "function",
    "method_signature": "function",
    "abstract_method_signature": "function",
    "class_declaration": "class",
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "lexical_declaration": "variable",
    "variable_declaration": "variable",
    "public_field_definition": "field",
    "property_declaration": "field",
    "property_signature": "field",
    "internal_module": "namespace",
}
# Declarations that qualify the names inside them: `JsonFile.load`, `IOptions.timeout`.
QUALIFIERS = frozenset(
    {
        "class_declaration",
        "abstract_class_declaration",
        "interface_declaration",
        "type_alias_declaration",
        "internal_module",
        "module",
        "enum_declaration",
        "class",
    }
)
# An object literal is qualified by what holds it: `const handlers = {...}`, `key: {...}`.
OBJECT_OWNERS = frozenset({"variable_declarator", "pair", "public_field_definition", "assignment_expression"})
WRAPPERS = frozenset({"as_expression", "satisfies_expression", "parenthesized_expression"})
NAMED = frozenset(TYPE_OF) | {
    "export_statement",
    "ambient_declaration",
    "pair",
    "variable_declarator",
    "module",
}
NAMED |= {"assignment_expression", "class"}


def _has_rich(node: Any, depth: int = 0) -> bool:
    if depth > 6:
        return False
    return any(c.type in NESTED_RICH or _has_rich(c, depth + 1) for c in node.named_children)


def with_comments_size(node: Any) -> int:
    total = size(node)
    prev = node.prev_named_sibling
    cur = node
    while prev is not None and prev.type == "comment" and cur.start_point[0] - end_row(prev) <= 1:
        total += size(prev)
        cur, prev = prev, prev.prev_named_sibling
    return total


def meaningful(node: Any, scale: float) -> bool:
    t = node.type
    if t in ALWAYS:
        return True
    if t in ("lexical_declaration", "variable_declaration"):
        return True
    limit = THRESHOLDS.get(t)
    if limit is None:
        return False
    limit = int(limit * scale)
    if t == "pair":
        return with_comments_size(node) > limit or _has_rich(node)
    if t == "property_signature":
        return with_comments_size(node) > limit
    if t == "expression_statement":
        return size(node) > limit or _has_rich(node)
    return size(node) > limit


def name_of(node: Any) -> str | None:
    """The declared name (for a `const`, its first declarator's), or None for unnamed nodes."""
    if node.type not in NAMED:
        return None
    if node.type == "export_statement":
        decl = node.child_by_field_name("declaration") or next(
            (c for c in node.named_children if c.type in TYPE_OF), None
        )
        return name_of(decl) if decl is not None else None
    if node.type in ("lexical_declaration", "variable_declaration"):
        decl = next((c for c in node.named_children if c.type == "variable_declarator"), None)
        return name_of(decl) if decl is not None else None
    if node.type == "ambient_declaration":
        inner = next((c for c in node.named_children if c.type in TYPE_OF), None)
        return name_of(inner) if inner is not None else None
    name = node.child_by_field_name("name") or node.child_by_field_name("key")
    if name is None and node.type == "assignment_expression":
        name = node.child_by_field_name("left")
    if name is None:
        name = next(
            (
                c
                for c in node.named_children
                if c.type in ("identifier", "property_identifier", "type_identifier")
            ),
            None,
        )
    if name is None:
        return None
    text: str = name.text.decode("utf-8", "replace")
    return text.strip("'\"`")[:200] or None


def type_of(node: Any) -> str:
    if node.type in ("export_statement", "ambient_declaration"):
        inner = node.child_by_field_name("declaration") or next(
            (c for c in node.named_children if c.type in TYPE_OF), None
        )
        return type_of(inner) if inner is not None else "code"
    if node.type == "pair":
        value = node.child_by_field_name("value")
        is_function = value is not None and value.type in (
            "arrow_function",
            "function_expression",
            "function",
        )
        return "function" if is_function else "field"
    return TYPE_OF.get(node.type, "code")


def owner(path: list[Any], i: int) -> str | None:
    """Classes, interfaces and namespaces qualify the names inside them, and so does an object
    literal, by what holds it: `const handlers = {...}`, `key: {...}`."""
    node = path[i]
    if node.type in QUALIFIERS:
        return name_of(node)
    if node.type == "object":
        for holder in reversed(path[:i]):
            if holder.type not in WRAPPERS:
                return name_of(holder) if holder.type in OBJECT_OWNERS else None
    return None


TYPESCRIPT = Vocabulary(
    name="typescript",
    split_scopes=SPLIT_SCOPES,
    weak_scopes=frozenset({"array"}),
    conduits=CONDUITS,
    imports=frozenset({"import_statement"}),
    comments=frozenset({"comment"}),
    comment_prefixes=("//", "/*", "*"),
    meaningful=meaningful,
    name_of=name_of,
    type_of=type_of,
    owner=owner,
)
