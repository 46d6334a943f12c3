//! Parsing with tree-sitter's CUDA grammar, within bounds, and small helpers on its nodes.

use std::collections::HashSet;
use std::num::NonZeroU16;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use tree_sitter::{Language, Node, Parser, Tree};

/// The longest a file (or a macro expansion) may take to parse; past it the file is not
/// read, with a note.
pub const MAX_PARSE_TIME: Duration = Duration::from_secs(10);

/// Where an expansion's text was written: see [`Code::origin`].
#[derive(Clone, Debug)]
pub(crate) struct Origin {
    /// The invocation's text.
    written: String,
    /// `written` with each run of white space as one space, and the offset in `written` of
    /// each of its bytes: squeezed once here, not at every node's line (a macro's
    /// invocation can be kilobytes, and a line is asked for every statement read).
    squeezed: (String, Vec<u32>),
    /// Its first line.
    line: u32,
    /// The invocation's own origin, when it is in an expansion.
    outer: Option<std::rc::Rc<Origin>>,
}

impl Origin {
    /// The origin of an expansion whose invocation is `written` from `line` on (inside the
    /// expansion `outer`, when it is in one).
    pub(crate) fn new(written: String, line: u32, outer: Option<std::rc::Rc<Origin>>) -> Origin {
        let squeezed = squeeze(&written);
        Origin {
            written,
            squeezed,
            line,
            outer,
        }
    }
}

/// Parsed source text: a file of the crate, or the text a macro expanded to.
pub(crate) struct Code {
    pub(crate) text: String,
    /// The file, relative to the crate (`src/cuda/a.cu`); for an expansion, the file of
    /// the invocation.
    pub(crate) shown: String,
    /// The file's path as found (empty for an expansion).
    pub(crate) path: PathBuf,
    /// `Some(line)`: every node is reported at this line (an expansion: the invocation's),
    /// unless `origin` places it better.
    pub(crate) fixed_line: Option<u32>,
    /// For an expansion: the invocation's text and first line (and the invocation's own
    /// origin, when it is itself in an expansion). A node whose text is written in the
    /// invocation (a macro's argument) is reported at its line there.
    pub(crate) origin: Option<std::rc::Rc<Origin>>,
    /// File-scope expansions of macros that define functions, by byte range, with the
    /// lines of their `#define` (in order of their ranges).
    pub(crate) placed: Vec<crate::files::Placed>,
    tree: Option<Tree>,
    timed_out: bool,
}

impl Code {
    /// Parses `text`; `shown` names it in messages.
    pub(crate) fn parse(text: String, shown: String, fixed_line: Option<u32>) -> Code {
        let mut parser = Parser::new();
        let language: tree_sitter::Language = tree_sitter_cuda::LANGUAGE.into();
        let tree = if parser.set_language(&language).is_ok() {
            let start = Instant::now();
            let mut timed_out = false;
            let mut progress = |_: &tree_sitter::ParseState| {
                if start.elapsed() > MAX_PARSE_TIME {
                    timed_out = true;
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            };
            let bytes = text.as_bytes();
            let mut read = |offset: usize, _| bytes.get(offset..).unwrap_or(&[]);
            let options = tree_sitter::ParseOptions::new().progress_callback(&mut progress);
            let tree = parser.parse_with_options(&mut read, None, Some(options));
            return Code {
                path: PathBuf::from(&shown),
                text,
                shown,
                fixed_line,
                origin: None,
                placed: Vec::new(),
                tree,
                timed_out,
            };
        } else {
            None
        };
        Code {
            path: PathBuf::from(&shown),
            text,
            shown,
            fixed_line,
            origin: None,
            placed: Vec::new(),
            tree,
            timed_out: false,
        }
    }

    /// The root node, when the text parsed.
    pub(crate) fn root(&self) -> Option<Node<'_>> {
        self.tree.as_ref().map(Tree::root_node)
    }

    /// What went wrong parsing, for a note: (line, message). Syntax errors are not fatal
    /// (tree-sitter recovers and the rest is read); a timeout is. An invocation of one of
    /// `macros` (the function-like macros of the sources) with types among its arguments
    /// (`CALL_LAUNCHER(__nv_bfloat16, uint8_t, ..);`) is not one: tree-sitter takes it for
    /// a function declarator it cannot place, and the reader expands it where it stands.
    pub(crate) fn problem(&self, macros: &HashSet<String>) -> Option<(Option<u32>, String)> {
        if self.timed_out {
            return Some((
                None,
                format!(
                    "parsing took longer than {} s: the file is not read",
                    MAX_PARSE_TIME.as_secs()
                ),
            ));
        }
        let root = self.root()?;
        if !root.has_error() {
            return None;
        }
        let error = errors(root)
            .into_iter()
            .find(|e| !self.is_macro_invocation(*e, macros))?;
        Some((
            Some(self.line(error)),
            format!(
                "tree-sitter's C++ grammar does not parse `{}` (a macro's arguments, or C++ it does not know): the rest of the file is read",
                clip(self.text(error), 40)
            ),
        ))
    }

    /// `error` is tree-sitter's reading of statements `M(type, ..);` with `M` one of
    /// `macros` ([`crate::macros::invocations`]), which the reader expands where they
    /// stand.
    fn is_macro_invocation(&self, error: Node<'_>, macros: &HashSet<String>) -> bool {
        error.is_error()
            && crate::macros::invocations(self.text(error), |name| macros.contains(name)).is_some()
    }

    /// A node's text.
    pub(crate) fn text(&self, node: Node<'_>) -> &str {
        self.text.get(node.byte_range()).unwrap_or("")
    }

    /// A node's 1-based line (the invocation's for an expansion).
    pub(crate) fn line(&self, node: Node<'_>) -> u32 {
        if let Some(origin) = &self.origin
            && let Some(line) = origin_line(origin, self.text(node))
        {
            return line;
        }
        if self.fixed_line.is_none() {
            let at = node.start_byte();
            let i = self.placed.partition_point(|p| p.range.start <= at);
            if let Some(p) = i.checked_sub(1).map(|i| &self.placed[i])
                && p.range.contains(&at)
            {
                let below = p.breaks.partition_point(|&b| b < at - p.range.start);
                return p
                    .first_line
                    .saturating_add(u32::try_from(below).unwrap_or(u32::MAX));
            }
        }
        self.fixed_line
            .unwrap_or_else(|| u32::try_from(node.start_position().row + 1).unwrap_or(u32::MAX))
    }
}

/// The line where `text` is written in an expansion's origin (the first line of its first
/// occurrence in the invocation), searching outwards through nested expansions.
fn origin_line(origin: &Origin, text: &str) -> Option<u32> {
    let Origin {
        written,
        squeezed: (squeezed, offsets),
        line,
        outer,
    } = origin;
    // The expander writes every run of white space as one space: compare so.
    let (needle, _) = squeeze(text.get(..text.len().min(160)).unwrap_or(text));
    if needle.trim().len() < 3 {
        return None;
    }
    let at = offsets[squeezed.find(needle.trim())?] as usize;
    let below =
        u32::try_from(written.get(..at).unwrap_or(written).matches('\n').count()).unwrap_or(0);
    match outer {
        // The invocation is itself in an expansion: place it there first.
        Some(o) => Some(origin_line(o, written).unwrap_or(*line) + below),
        None => Some(line + below),
    }
}

/// `text` with each run of white space as one space, and the offset in `text` of each
/// byte of the result.
fn squeeze(text: &str) -> (String, Vec<u32>) {
    // Files and expansions are far below 4 GiB (files::MAX_FILE_BYTES); saturate regardless.
    let offset = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
    let mut out = String::with_capacity(text.len());
    let mut offsets = Vec::with_capacity(text.len() + 1);
    let mut in_space = false;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            if !in_space {
                out.push(' ');
                offsets.push(offset(i));
            }
            in_space = true;
        } else {
            in_space = false;
            out.push(c);
            for _ in 0..c.len_utf8() {
                offsets.push(offset(i));
            }
        }
    }
    offsets.push(offset(text.len()));
    (out, offsets)
}

/// The outermost error and missing nodes under `root`, in the order of the text, at most
/// [`MAX_ERRORS`] (a node with an error below it but none of its own counts as one).
fn errors(root: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if out.len() >= MAX_ERRORS {
            break;
        }
        if node.is_error() || node.is_missing() {
            out.push(node);
            continue;
        }
        let mut cursor = node.walk();
        let below: Vec<Node<'_>> = node
            .children(&mut cursor)
            .filter(|c| c.has_error())
            .collect();
        if below.is_empty() {
            out.push(node);
        }
        // Reversed, so that the first child is taken next.
        stack.extend(below.into_iter().rev());
    }
    out
}

/// The most syntax errors of one file looked at for its note.
const MAX_ERRORS: usize = 64;

/// At most `max` characters of `text` on one line, `...` when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        one_line
    } else {
        let cut: String = one_line.chars().take(max).collect();
        format!("{cut}...")
    }
}

/// The named children of a node.
pub(crate) fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// The children of a node under a field.
pub(crate) fn field_children(node: Node<'_>, field: Field) -> Vec<Node<'_>> {
    let Some(id) = field.id() else {
        return Vec::new();
    };
    let mut cursor = node.walk();
    node.children_by_field_id(id, &mut cursor).collect()
}

/// The fields of tree-sitter's CUDA grammar the reader reads. A node's child by field is
/// looked up by the field's id, found once per process: tree-sitter's
/// `child_by_field_name` compares the name with each of the grammar's field names on every
/// call (a third of the reader's time, and more under a fuzzer's `strncmp` hooks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Field {
    Alternative,
    Argument,
    Arguments,
    Body,
    Condition,
    Consequence,
    Declarator,
    DefaultType,
    DefaultValue,
    Designator,
    /// `field`: the member a `field_expression` names (`cfg.blockDim`).
    Member,
    Function,
    Index,
    Indices,
    Initializer,
    Left,
    Name,
    Operator,
    Parameters,
    Right,
    Scope,
    Size,
    Type,
    Update,
    Value,
}

impl Field {
    const ALL: [Field; 25] = [
        Field::Alternative,
        Field::Argument,
        Field::Arguments,
        Field::Body,
        Field::Condition,
        Field::Consequence,
        Field::Declarator,
        Field::DefaultType,
        Field::DefaultValue,
        Field::Designator,
        Field::Member,
        Field::Function,
        Field::Index,
        Field::Indices,
        Field::Initializer,
        Field::Left,
        Field::Name,
        Field::Operator,
        Field::Parameters,
        Field::Right,
        Field::Scope,
        Field::Size,
        Field::Type,
        Field::Update,
        Field::Value,
    ];

    /// The name the grammar gives the field.
    fn name(self) -> &'static str {
        match self {
            Field::Alternative => "alternative",
            Field::Argument => "argument",
            Field::Arguments => "arguments",
            Field::Body => "body",
            Field::Condition => "condition",
            Field::Consequence => "consequence",
            Field::Declarator => "declarator",
            Field::DefaultType => "default_type",
            Field::DefaultValue => "default_value",
            Field::Designator => "designator",
            Field::Member => "field",
            Field::Function => "function",
            Field::Index => "index",
            Field::Indices => "indices",
            Field::Initializer => "initializer",
            Field::Left => "left",
            Field::Name => "name",
            Field::Operator => "operator",
            Field::Parameters => "parameters",
            Field::Right => "right",
            Field::Scope => "scope",
            Field::Size => "size",
            Field::Type => "type",
            Field::Update => "update",
            Field::Value => "value",
        }
    }

    /// The field's id in the grammar (`None` if the grammar has no such field).
    fn id(self) -> Option<NonZeroU16> {
        static IDS: OnceLock<Vec<Option<NonZeroU16>>> = OnceLock::new();
        IDS.get_or_init(|| {
            let language: Language = tree_sitter_cuda::LANGUAGE.into();
            Field::ALL
                .iter()
                .map(|f| language.field_id_for_name(f.name()))
                .collect()
        })[self as usize]
    }
}

/// A node's kind (`call_expression`): tree-sitter's `Node::kind` checks the name's UTF-8
/// on every call, so each name is read once per process, by kind id.
pub(crate) fn kind(node: Node<'_>) -> &'static str {
    static KINDS: OnceLock<Vec<String>> = OnceLock::new();
    let kinds = KINDS.get_or_init(|| {
        let language: Language = tree_sitter_cuda::LANGUAGE.into();
        (0..language.node_kind_count())
            .map(|id| {
                u16::try_from(id)
                    .ok()
                    .and_then(|id| language.node_kind_for_id(id))
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect()
    });
    match node.kind_id() {
        // tree-sitter's built-in error symbols, past the grammar's.
        u16::MAX => "ERROR",
        id => kinds.get(usize::from(id)).map_or("_ERROR", String::as_str),
    }
}

/// Declares [`Kind`]: each variant with the grammar's name for it and whether the node is
/// named.
macro_rules! kinds {
    ($($(#[$doc:meta])* $kind:ident => ($name:literal, $named:literal),)*) => {
        /// The node kinds of tree-sitter's CUDA grammar the reader tells apart. A node's kind is
        /// found by its kind id ([`Kind::of`]), from a table built once per process: a
        /// misspelt kind is a compile error, and a kind the grammar lacks fails the unit test
        /// (a string compared with `Node::kind` would silently never match).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub(crate) enum Kind {
            $($(#[$doc])* $kind,)*
        }

        impl Kind {
            /// Every kind, in declaration order.
            const ALL: &[Kind] = &[$(Kind::$kind,)*];

            /// The grammar's name for the kind, and whether its node is named.
            fn name(self) -> (&'static str, bool) {
                match self {
                    $(Kind::$kind => ($name, $named),)*
                }
            }
        }
    };
}

kinds! {
    /// The `__global__` keyword (unnamed: a function's specifier).
    Global => ("__global__", false),
    AbstractArrayDeclarator => ("abstract_array_declarator", true),
    AbstractPointerDeclarator => ("abstract_pointer_declarator", true),
    AbstractReferenceDeclarator => ("abstract_reference_declarator", true),
    AccessSpecifier => ("access_specifier", true),
    AliasDeclaration => ("alias_declaration", true),
    AlignasQualifier => ("alignas_qualifier", true),
    AlignofExpression => ("alignof_expression", true),
    ArgumentList => ("argument_list", true),
    ArrayDeclarator => ("array_declarator", true),
    AssignmentExpression => ("assignment_expression", true),
    AttributeDeclaration => ("attribute_declaration", true),
    AttributeSpecifier => ("attribute_specifier", true),
    AttributedStatement => ("attributed_statement", true),
    BaseClassClause => ("base_class_clause", true),
    BinaryExpression => ("binary_expression", true),
    BitfieldClause => ("bitfield_clause", true),
    BreakStatement => ("break_statement", true),
    CallExpression => ("call_expression", true),
    CaseStatement => ("case_statement", true),
    CastExpression => ("cast_expression", true),
    CharLiteral => ("char_literal", true),
    ClassSpecifier => ("class_specifier", true),
    CommaExpression => ("comma_expression", true),
    Comment => ("comment", true),
    CompoundLiteralExpression => ("compound_literal_expression", true),
    CompoundStatement => ("compound_statement", true),
    ConcatenatedString => ("concatenated_string", true),
    ConditionClause => ("condition_clause", true),
    ConditionalExpression => ("conditional_expression", true),
    ContinueStatement => ("continue_statement", true),
    Declaration => ("declaration", true),
    DeclarationList => ("declaration_list", true),
    DoStatement => ("do_statement", true),
    ElseClause => ("else_clause", true),
    EnumSpecifier => ("enum_specifier", true),
    Enumerator => ("enumerator", true),
    ExpressionStatement => ("expression_statement", true),
    False => ("false", true),
    FieldDeclaration => ("field_declaration", true),
    FieldExpression => ("field_expression", true),
    FieldIdentifier => ("field_identifier", true),
    ForRangeLoop => ("for_range_loop", true),
    ForStatement => ("for_statement", true),
    FriendDeclaration => ("friend_declaration", true),
    FunctionDeclarator => ("function_declarator", true),
    FunctionDefinition => ("function_definition", true),
    GotoStatement => ("goto_statement", true),
    Identifier => ("identifier", true),
    IfStatement => ("if_statement", true),
    InitDeclarator => ("init_declarator", true),
    InitializerList => ("initializer_list", true),
    InitializerPair => ("initializer_pair", true),
    KernelCallSyntax => ("kernel_call_syntax", true),
    LabeledStatement => ("labeled_statement", true),
    LambdaExpression => ("lambda_expression", true),
    LinkageSpecification => ("linkage_specification", true),
    MsDeclspecModifier => ("ms_declspec_modifier", true),
    NamespaceDefinition => ("namespace_definition", true),
    NamespaceIdentifier => ("namespace_identifier", true),
    NewExpression => ("new_expression", true),
    Null => ("null", true),
    /// The `nullptr` keyword (unnamed; the named node around it is `null`).
    Nullptr => ("nullptr", false),
    NumberLiteral => ("number_literal", true),
    OptionalParameterDeclaration => ("optional_parameter_declaration", true),
    OptionalTypeParameterDeclaration => ("optional_type_parameter_declaration", true),
    ParameterDeclaration => ("parameter_declaration", true),
    ParameterPackExpansion => ("parameter_pack_expansion", true),
    ParenthesizedDeclarator => ("parenthesized_declarator", true),
    ParenthesizedExpression => ("parenthesized_expression", true),
    PointerDeclarator => ("pointer_declarator", true),
    PointerExpression => ("pointer_expression", true),
    PreprocCall => ("preproc_call", true),
    PreprocDef => ("preproc_def", true),
    PreprocElif => ("preproc_elif", true),
    PreprocElifdef => ("preproc_elifdef", true),
    PreprocElse => ("preproc_else", true),
    PreprocFunctionDef => ("preproc_function_def", true),
    PreprocIf => ("preproc_if", true),
    PreprocIfdef => ("preproc_ifdef", true),
    PrimitiveType => ("primitive_type", true),
    QualifiedIdentifier => ("qualified_identifier", true),
    ReturnStatement => ("return_statement", true),
    SizedTypeSpecifier => ("sized_type_specifier", true),
    SizeofExpression => ("sizeof_expression", true),
    StaticAssertDeclaration => ("static_assert_declaration", true),
    StorageClassSpecifier => ("storage_class_specifier", true),
    StringLiteral => ("string_literal", true),
    StructSpecifier => ("struct_specifier", true),
    SubscriptExpression => ("subscript_expression", true),
    SwitchStatement => ("switch_statement", true),
    TemplateDeclaration => ("template_declaration", true),
    TemplateFunction => ("template_function", true),
    TemplateInstantiation => ("template_instantiation", true),
    TemplateParameterList => ("template_parameter_list", true),
    TemplateType => ("template_type", true),
    TranslationUnit => ("translation_unit", true),
    True => ("true", true),
    TryStatement => ("try_statement", true),
    TypeDefinition => ("type_definition", true),
    TypeDescriptor => ("type_descriptor", true),
    TypeIdentifier => ("type_identifier", true),
    TypeParameterDeclaration => ("type_parameter_declaration", true),
    TypeQualifier => ("type_qualifier", true),
    UnaryExpression => ("unary_expression", true),
    UnionSpecifier => ("union_specifier", true),
    UpdateExpression => ("update_expression", true),
    UsingDeclaration => ("using_declaration", true),
    VariadicParameterDeclaration => ("variadic_parameter_declaration", true),
    VariadicTypeParameterDeclaration => ("variadic_type_parameter_declaration", true),
    /// The `virtual` keyword (unnamed: never among a node's named children).
    Virtual => ("virtual", false),
    WhileStatement => ("while_statement", true),
}

impl Kind {
    /// The kind of `node`, if the reader tells it apart (`None` for every other kind, and
    /// for errors). By kind id: every id the grammar gives the kind's name with the kind's
    /// namedness (an alias can give one name several ids).
    pub(crate) fn of(node: Node<'_>) -> Option<Kind> {
        Kind::of_id(node.kind_id())
    }

    /// The kind of the grammar's kind id `id` (see [`Kind::of`]).
    fn of_id(id: u16) -> Option<Kind> {
        static BY_ID: OnceLock<Vec<Option<Kind>>> = OnceLock::new();
        let by_id = BY_ID.get_or_init(|| {
            let language: Language = tree_sitter_cuda::LANGUAGE.into();
            (0..language.node_kind_count())
                .map(|id| {
                    let id = u16::try_from(id).ok()?;
                    let name = language.node_kind_for_id(id)?;
                    let named = language.node_kind_is_named(id);
                    Kind::ALL
                        .iter()
                        .copied()
                        .find(|k| k.name() == (name, named))
                })
                .collect()
        });
        by_id.get(usize::from(id)).copied().flatten()
    }
}

/// A node's (first) child under a field.
pub(crate) fn child(node: Node<'_>, field: Field) -> Option<Node<'_>> {
    node.child_by_field_id(field.id()?.get())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// A file with every kind of [`Kind`] in it (the comment on each line names them).
    const EVERY_KIND: &str = r#"
#define N 4 // preproc_def, comment
#define SQ(x) ((x) * (x)) // preproc_function_def
#if N > 2 // preproc_if
int a1;
#elif N // preproc_elif
int a2;
#else // preproc_else
int a3;
#endif
#ifdef M // preproc_ifdef
int b1;
#elifdef Q // preproc_elifdef
int b2;
#endif
#pragma once // preproc_call
extern "C" { int c_fn(int); } // linkage_specification, declaration_list
namespace ns { constexpr int k = 2; } // namespace_definition
enum E { A = 1, B }; // enum_specifier, enumerator
typedef struct { int x; } S; // type_definition, field_declaration, field_identifier
using U = unsigned long; // alias_declaration, sized_type_specifier
union V { int i; float f; }; // union_specifier
struct W : S { // base_class_clause
  public: // access_specifier
  int bits : 3; // bitfield_clause
  static const int s = 1; // storage_class_specifier, type_qualifier
  virtual void v(); // virtual
  friend class X; // friend_declaration
  using S::x; // using_declaration
  int (*fp)(int); // parenthesized_declarator, pointer_declarator, function_declarator
  int arr[4]; // array_declarator
  alignas(16) int al; // alignas_qualifier
  int at __attribute__((aligned(8))); // attribute_specifier
};
class Cls { int y; }; // class_specifier
static_assert(sizeof(int*) == 8, "x"); // static_assert_declaration, abstract_pointer_declarator
[[nodiscard]] int g(); // attribute_declaration
__declspec(dllexport) int h; // ms_declspec_modifier
template <typename T, typename... Ts, typename D = int, int M = 2, int... Ms, int O>
__global__ void kern(T* p) {} // type parameters, parameter declarations, __global__
template void kern<float>(float*); // template_instantiation, template_function
template <typename T> struct Box {};
Box<int> bx; // template_type
void host(int n, float* p, int arr[3]) {
  dim3 grid = {1, 2}; // initializer_list
  S s2 = {.x = 1}; // initializer_pair
  int a = n ? 1 : 2; // conditional_expression
  a += SQ(n); // call_expression, argument_list
  a++; // update_expression
  a = -a; // unary_expression
  a = (a, n); // comma_expression, parenthesized_expression
  char c = 'x'; // char_literal
  const char* cs = "a" "b"; // concatenated_string, string_literal
  bool t = true, f = false;
  float* q = nullptr; void* z = NULL;
  int* ip = &a; *ip = 1; // pointer_expression
  p[0] = 1.0f; // subscript_expression
  s2.x = 2; // field_expression
  int m = (int)a; // cast_expression
  S s3 = (S){1}; // compound_literal_expression
  size_t al = alignof(float) + sizeof(int[3]); // alignof_expression, abstract_array_declarator
  int& r = static_cast<int&>(a); // abstract_reference_declarator
  auto l = [](int x) { return x; }; // lambda_expression, return_statement
  int* hp = new int[4]; // new_expression
  kern<float><<<1, 32>>>(p); // kernel_call_syntax
  a = ns::k; // qualified_identifier, namespace_identifier
  if (int v = a) { } else { } // condition_clause, else_clause
  switch (a) { case 1: break; } // case_statement, break_statement
  while (a) { continue; }
  for (int i = 0; i < 4; i++) {}
  do { } while (0);
  for (int x : arr) {} // for_range_loop
  lbl: goto lbl; // labeled_statement, goto_statement
  [[likely]] a = 1; // attributed_statement
  try { } catch (...) { }
  foo(args...); // parameter_pack_expansion
}
"#;

    #[test]
    fn kinds_are_the_grammars() {
        let language: Language = tree_sitter_cuda::LANGUAGE.into();
        // Every kind is in the grammar, named or not as declared.
        for &k in Kind::ALL {
            let (name, named) = k.name();
            assert_ne!(language.id_for_node_kind(name, named), 0, "{k:?}");
        }
        // By id, every id of the grammar is the kind a comparison of its name would give
        // (aliases give a name several ids; a named and an unnamed node may share one).
        let by_name = |name: &str| Kind::ALL.iter().copied().find(|k| k.name().0 == name);
        for id in 0..u16::try_from(language.node_kind_count()).unwrap() {
            let name = language.node_kind_for_id(id).unwrap_or_default();
            assert_eq!(Kind::of_id(id), by_name(name), "{id} {name}");
        }
        assert_eq!(Kind::of_id(u16::MAX), None);
        // Over a parse, and every kind is met.
        let code = Code::parse(EVERY_KIND.to_owned(), "a.cu".to_owned(), None);
        let mut stack = vec![code.root().unwrap()];
        let mut met = HashSet::new();
        while let Some(n) = stack.pop() {
            assert_eq!(Kind::of(n), by_name(n.kind()), "{}", n.kind());
            met.extend(Kind::of(n));
            let mut cursor = n.walk();
            stack.extend(n.children(&mut cursor));
        }
        let unmet: Vec<Kind> = Kind::ALL
            .iter()
            .copied()
            .filter(|k| !met.contains(k))
            .collect();
        assert!(unmet.is_empty(), "{unmet:?}");
    }

    #[test]
    fn kinds_and_fields_by_id_are_tree_sitters() {
        let code = Code::parse(
            "template <int N> void f(int n) { k<<<n, N>>>(n); int x = ; }".to_owned(),
            "a.cu".to_owned(),
            None,
        );
        let root = code.root().unwrap();
        assert!(root.has_error());
        let mut stack = vec![root];
        let (mut nodes, mut errors, mut fields) = (0, 0, 0);
        while let Some(n) = stack.pop() {
            nodes += 1;
            assert_eq!(kind(n), n.kind());
            errors += usize::from(n.is_error());
            for f in Field::ALL {
                assert_eq!(child(n, f), n.child_by_field_name(f.name()), "{f:?}");
                fields += usize::from(child(n, f).is_some());
            }
            let mut cursor = n.walk();
            stack.extend(n.children(&mut cursor));
        }
        assert!(
            nodes > 30 && errors > 0 && fields > 10,
            "{nodes} {errors} {fields}"
        );
    }
}
