"""The languages that share monorepos with TypeScript, as tables (table.py) of their grammars'
node types (tree-sitter-<lang> at the minor releases pinned in pyproject.toml)."""

from __future__ import annotations

from typing import Any

from monodex.indexer.syntax.table import Table, by_field, text_of
from monodex.indexer.syntax.vocab import Vocabulary

F = frozenset
_C_COMMENTS = ("//", "/*", "*")
# Control flow most grammars name alike: searched through for the bodies inside them.
_FLOW = F(
    {"if_statement", "else_clause", "for_statement", "while_statement", "do_statement", "try_statement"}
)
_FLOW |= {"catch_clause", "finally_clause", "switch_statement", "expression_statement", "return_statement"}


def _declarator_name(node: Any) -> str | None:
    """C and C++ name a function through its declarator chain: `int *f(void)`, `Foo::bar()`."""
    d = node.child_by_field_name("declarator")
    while d is not None and d.type not in (
        "identifier",
        "field_identifier",
        "qualified_identifier",
        "type_identifier",
    ):
        if d.type in ("destructor_name", "operator_name"):
            break
        d = d.child_by_field_name("declarator") or next(
            (c for c in d.named_children if "identifier" in c.type or c.type.endswith("_name")), None
        )
    return text_of(d)


def _rust_impl(node: Any) -> str | None:
    """`impl Package`, `impl Display for Package` (generics and paths dropped: `impl<T> fmt::Debug for
    Foo<T>` is `impl Debug for Foo`)."""
    kind = text_of(node.child_by_field_name("type"))
    trait = text_of(node.child_by_field_name("trait"))
    if kind is None:
        return None
    kind = kind.split("<")[0]
    if trait is None:
        return f"impl {kind}"
    return f"impl {trait.split('<')[0].split('::')[-1]} for {kind}"


def _go_method(node: Any) -> str | None:
    """`Server.Publish` for `func (s *Server) Publish(...)`: the receiver's type qualifies it."""
    name = text_of(node.child_by_field_name("name"))
    receiver = node.child_by_field_name("receiver")
    param = next((c for c in receiver.named_children), None) if receiver is not None else None
    kind = text_of(param.child_by_field_name("type")) if param is not None else None
    if kind is None or name is None:
        return name
    return f"{kind.lstrip('*').split('[')[0]}.{name}"


PYTHON = Table(
    name="python",
    definitions={"class_definition": "class", "function_definition": "function"},
    scopes=F({"module", "block"}),
    conduits=F({"if_statement", "elif_clause", "else_clause", "for_statement", "while_statement"})
    | {"try_statement", "except_clause", "finally_clause", "with_statement", "match_statement", "case_clause"}
    | {"expression_statement", "assignment", "call", "argument_list", "return_statement"},
    qualifiers=F({"class_definition"}),
    imports=F({"import_statement", "import_from_statement", "future_import_statement"}),
    comments=F({"comment"}),
    comment_prefixes=("#",),
    weak=F({"list", "dictionary", "tuple", "set"}),
    wrappers=F({"decorated_definition"}),
    preamble=F({"expression_statement"}),  # the module docstring, `__all__`
)

RUST = Table(
    name="rust",
    definitions={
        "function_item": "function",
        "function_signature_item": "function",
        "struct_item": "struct",
        "enum_item": "enum",
        "union_item": "struct",
        "trait_item": "trait",
        "impl_item": "impl",
        "mod_item": "module",
        "macro_definition": "macro",
        "const_item": "const",
        "static_item": "const",
        "type_item": "type",
    },
    scopes=F({"source_file", "declaration_list", "block", "field_declaration_list", "enum_variant_list"})
    | {"match_block"},
    conduits=F({"if_expression", "else_clause", "match_expression", "match_arm", "for_expression"})
    | {"while_expression", "loop_expression", "expression_statement", "let_declaration", "call_expression"}
    | {"closure_expression", "arguments", "return_expression", "async_block", "unsafe_block"}
    | {"macro_rule", "macro_invocation"},
    qualifiers=F({"impl_item", "trait_item", "mod_item"}),
    imports=F({"use_declaration", "extern_crate_declaration"}),
    comments=F({"line_comment", "block_comment", "attribute_item", "inner_attribute_item"}),
    comment_prefixes=("//", "/*", "*", "#["),
    # A macro's body is tokens, not syntax: split between any two of its token trees and tokens.
    weak=F({"array_expression", "token_tree"}),
    small={"const_item": 200, "static_item": 200, "type_item": 100},
    namers={"impl_item": _rust_impl},
)

GO = Table(
    name="go",
    definitions={
        "function_declaration": "function",
        "method_declaration": "function",
        "type_spec": "type",
        "const_declaration": "const",
        "var_declaration": "variable",
    },
    scopes=F(
        {"source_file", "block", "statement_list", "field_declaration_list", "expression_switch_statement"}
    )
    | {"type_switch_statement", "select_statement", "expression_case", "type_case", "default_case"}
    | {"communication_case"},
    conduits=F({"func_literal", "if_statement", "for_statement", "type_declaration", "struct_type"})
    | {"interface_type", "call_expression", "argument_list", "short_var_declaration"}
    | {"assignment_statement", "composite_literal", "go_statement", "defer_statement", "return_statement"}
    | {"expression_list", "expression_statement"},
    qualifiers=F(),
    imports=F({"package_clause", "import_declaration"}),
    comments=F({"comment"}),
    comment_prefixes=_C_COMMENTS,
    weak=F({"literal_value"}),
    wrappers=F({"type_declaration"}),
    small={"const_declaration": 200, "var_declaration": 200},
    namers={
        "method_declaration": _go_method,
        "const_declaration": lambda n: by_field("name")(_first(n, "const_spec")),
        "var_declaration": lambda n: by_field("name")(_first(n, "var_spec")),
    },
)

JAVA = Table(
    name="java",
    definitions={
        "class_declaration": "class",
        "interface_declaration": "interface",
        "enum_declaration": "enum",
        "record_declaration": "class",
        "annotation_type_declaration": "interface",
        "method_declaration": "function",
        "constructor_declaration": "function",
        "field_declaration": "field",
    },
    scopes=F({"program", "class_body", "interface_body", "enum_body", "block", "constructor_body"})
    | {"switch_block", "annotation_type_body", "enum_body_declarations"},
    conduits=_FLOW
    | {"enhanced_for_statement", "switch_expression", "switch_block_statement_group", "lambda_expression"}
    | {"method_invocation", "argument_list", "local_variable_declaration", "variable_declarator"}
    | {"object_creation_expression"},
    qualifiers=F({"class_declaration", "interface_declaration", "enum_declaration", "record_declaration"}),
    imports=F({"package_declaration", "import_declaration"}),
    comments=F({"line_comment", "block_comment"}),
    comment_prefixes=(*_C_COMMENTS, "@"),
    weak=F({"array_initializer"}),
    small={"field_declaration": 50},
    namers={"field_declaration": lambda n: by_field("name")(n.child_by_field_name("declarator"))},
)

KOTLIN = Table(
    name="kotlin",
    definitions={
        "class_declaration": "class",
        "object_declaration": "class",
        "companion_object": "class",
        "function_declaration": "function",
        "secondary_constructor": "function",
        "property_declaration": "field",
        "type_alias": "type",
    },
    scopes=F({"source_file", "class_body", "enum_class_body", "block", "statements", "lambda_literal"}),
    conduits=F({"function_body", "if_expression", "when_expression", "when_entry", "for_statement"})
    | {"while_statement", "try_expression", "catch_block", "finally_block", "call_expression"}
    | {"value_arguments", "value_argument", "annotated_lambda", "control_structure_body"},
    qualifiers=F({"class_declaration", "object_declaration", "companion_object"}),
    imports=F({"package_header", "import", "import_list", "import_header"}),
    comments=F({"line_comment", "block_comment", "multiline_comment"}),
    comment_prefixes=(*_C_COMMENTS, "@"),
    small={"property_declaration": 50},
    namers={"property_declaration": lambda n: text_of(_first(n, "variable_declaration", "identifier"))},
)

SWIFT = Table(
    name="swift",
    definitions={
        "class_declaration": "class",
        "protocol_declaration": "interface",
        "function_declaration": "function",
        "init_declaration": "function",
        "deinit_declaration": "function",
        "protocol_function_declaration": "function",
        "subscript_declaration": "function",
        "property_declaration": "field",
        "typealias_declaration": "type",
    },
    scopes=F({"source_file", "class_body", "protocol_body", "enum_class_body", "statements"}),
    conduits=F({"function_body", "computed_property", "if_statement", "guard_statement", "for_statement"})
    | {"while_statement", "do_statement", "catch_block", "switch_statement", "switch_entry", "lambda_literal"}
    | {"call_expression", "call_suffix", "value_arguments", "value_argument"},
    qualifiers=F({"class_declaration", "protocol_declaration"}),
    imports=F({"import_declaration"}),
    comments=F({"comment", "multiline_comment"}),
    comment_prefixes=(*_C_COMMENTS, "@"),
    small={"property_declaration": 50},
)

_C_DEFINITIONS = {
    "function_definition": "function",
    "struct_specifier": "struct",
    "union_specifier": "struct",
    "enum_specifier": "enum",
    "type_definition": "type",
    "declaration": "variable",
    "preproc_function_def": "macro",
}
_C_SCOPES = F({"translation_unit", "compound_statement", "field_declaration_list", "declaration_list"})
_C_SCOPES |= {"preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif", "case_statement"}
_C_CONDUITS = _FLOW | {"for_range_loop", "init_declarator", "call_expression", "argument_list"}
_C_COMMON: dict[str, Any] = {
    "conduits": _C_CONDUITS | {"linkage_specification", "lambda_expression", "field_declaration"},
    "imports": F({"preproc_include"}),
    "comments": F({"comment"}),
    "comment_prefixes": (*_C_COMMENTS, "#"),
    "weak": F({"initializer_list", "enumerator_list"}),
    "needs_body": F({"struct_specifier", "union_specifier", "enum_specifier", "class_specifier"}),
}

C = Table(
    name="c",
    definitions=_C_DEFINITIONS,
    scopes=_C_SCOPES,
    qualifiers=F(),
    small={"declaration": 200, "type_definition": 100},
    namers={
        "function_definition": _declarator_name,
        "declaration": _declarator_name,
        "type_definition": _declarator_name,
    },
    **_C_COMMON,
)

CPP = Table(
    name="cpp",
    definitions={**_C_DEFINITIONS, "class_specifier": "class", "namespace_definition": "namespace"},
    scopes=_C_SCOPES,
    qualifiers=F({"class_specifier", "struct_specifier", "namespace_definition"}),
    wrappers=F({"template_declaration"}),
    small={"declaration": 200, "type_definition": 100},
    namers={
        "function_definition": _declarator_name,
        "declaration": _declarator_name,
        "type_definition": _declarator_name,
    },
    **_C_COMMON,
)

_CS_TYPES = {
    "class_declaration": "class",
    "struct_declaration": "struct",
    "interface_declaration": "interface",
    "record_declaration": "class",
    "enum_declaration": "enum",
}
CSHARP = Table(
    name="csharp",
    definitions={
        **_CS_TYPES,
        "namespace_declaration": "namespace",
        "file_scoped_namespace_declaration": "namespace",
        "method_declaration": "function",
        "constructor_declaration": "function",
        "local_function_statement": "function",
        "property_declaration": "field",
        "field_declaration": "field",
        "delegate_declaration": "type",
    },
    scopes=F({"compilation_unit", "declaration_list", "block", "switch_body", "accessor_list"}),
    conduits=_FLOW
    | {"foreach_statement", "switch_section", "local_declaration_statement", "variable_declaration"}
    | {"variable_declarator", "invocation_expression", "argument_list", "lambda_expression"}
    | {"object_creation_expression"},
    qualifiers=F(_CS_TYPES),
    imports=F({"using_directive"}),
    comments=F({"comment"}),
    comment_prefixes=(*_C_COMMENTS, "["),
    weak=F({"initializer_expression", "enum_member_declaration_list"}),
    small={"property_declaration": 50, "field_declaration": 50},
    namers={
        "field_declaration": lambda n: text_of(
            _first(n, "variable_declaration", "variable_declarator", "identifier")
        )
    },
)

BASH = Table(
    name="bash",
    definitions={"function_definition": "function"},
    scopes=F({"program", "compound_statement", "do_group", "if_statement", "elif_clause", "else_clause"})
    | {"case_statement", "case_item", "subshell"},
    conduits=F({"for_statement", "c_style_for_statement", "while_statement", "redirected_statement"}),
    qualifiers=F(),
    imports=F(),
    comments=F({"comment"}),
    comment_prefixes=("#",),
)


def _first(node: Any, *types: str) -> Any | None:
    """Down a chain of first children of these types (Kotlin's `val x`: variable_declaration > identifier)."""
    for t in types:
        node = next((c for c in node.named_children if c.type == t), None) if node is not None else None
    return node


TABLES = {t.name: t for t in (PYTHON, RUST, GO, JAVA, KOTLIN, SWIFT, C, CPP, CSHARP, BASH)}
VOCABULARIES: dict[str, Vocabulary] = {name: t.vocabulary() for name, t in TABLES.items()}
