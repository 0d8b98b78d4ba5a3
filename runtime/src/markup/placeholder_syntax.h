// The placeholder syntaxes of app strings, one parser each: given a text and the byte where a candidate
// starts, each returns the byte after the placeholder, or 0 when none starts there. Pure functions over the
// bytes (no allocation): protect.cc's NextPlaceholder tries them in turn.
//
// Sources: C's and POSIX's printf (ISO C11 7.21.6.1, POSIX fprintf's "%n$"), Objective-C's %@, Python's
// %-formatting and str.format, .NET's composite formatting, Project Fluent's placeables, i18next's
// interpolation and nesting, Ruby's format references.
#pragma once

#include <cstddef>
#include <string_view>

namespace tern::markup::syntax {

/// printf at '%': %[n$][flags -+#0'][width | * | *m$][.precision | .* | .*m$][hh h l ll L q j z Z t]conversion
/// (d i o u x X e E f F g G a A c C s S p n @), and "%%" (a literal percent sign, kept as written). A bare
/// conversion ("%s", "%d") followed by a lower-case word is not one ("%sure", "%done") unless
/// `before_words` (texts known to hold placeholders: git's "%shint:%s"); with a position, width or precision
/// it is ("%1$.2fkm"). A space is not taken as a flag ("50% discount").
size_t Printf(std::string_view t, size_t i, bool before_words = false);

/// Python's named %-formatting at '%': %(name)[flags -+#0, not a space][width][.precision]conversion
/// (d i o u x X e E f F g G c r s a), e.g. "%(count)d", "%(name)s".
size_t PythonNamed(std::string_view t, size_t i);

/// Ruby's %{name} at '%'.
size_t RubyNamed(std::string_view t, size_t i);

/// At '{': {x} or {{x}} with no space or brace inside, at most 64 bytes: .NET / Java {0}, {0,number},
/// Python {name!r:>10}, i18next {{x}}; and ICU's simple arguments with spaces, {n, number}, {d, date, full}
/// (types number, date, time, spellout, ordinal, duration; a style of at most 64 bytes).
size_t Brace(std::string_view t, size_t i);

/// Project Fluent's placeables at '{': { $variable } and { -term } (a term may have an .attribute), spaces
/// inside optional.
size_t Fluent(std::string_view t, size_t i);

/// A Fluent inline expression at k: $variable, -term (.attribute, (arguments)) or FUNCTION(arguments): the
/// byte after it, or 0 (what a placeable and a select expression's selector hold).
size_t FluentExpression(std::string_view t, size_t k);

/// A Fluent variant key at k ("[one]", "*[other]", "[ 0 ]": a number or identifier of at most 64 bytes):
/// the byte after its ']', or 0.
size_t FluentVariantKey(std::string_view t, size_t k);

/// i18next's nesting at '$': $t(key) (key without spaces or parentheses, at most 64 bytes).
size_t I18nextNesting(std::string_view t, size_t i);

/// Shell variables at '$': $NAME or ${NAME} (NAME: a letter or '_', then letters, digits, '_'; at most 64
/// bytes), not after a letter, digit or '_'. "$5" and "$ 5" are not ones.
size_t Shell(std::string_view t, size_t i);

}  // namespace tern::markup::syntax
