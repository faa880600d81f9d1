// The by-name catalogue of the run-time API (rt::catalogue, rt::call): every card's entries
// (proxgen/catalogue/catalogue.hpp), with rt's arguments — expressions carrying the names they use,
// named or anonymous images — turned into the cards' and the built node or term wrapped back into
// an expression or a one-term problem with its names.
#include "nodes.hpp"
#include "proxgen/catalogue/catalogue.hpp"

namespace proxgen::rt {

const std::vector<Signature>& catalogue() {
    static const std::vector<Signature> list = [] {
        std::vector<Signature> s;
        for (const auto* e : catalogue::entries()) s.push_back(e->signature);
        return s;
    }();
    return list;
}

Value call(std::string_view name, const std::vector<Argument>& args) {
    detail::Names names;
    std::vector<catalogue::Arg> cargs;
    for (const Argument& a : args) {
        if (const Expr* e = std::get_if<Expr>(&a)) {
            const detail::ExprNode& n = detail::node_of(*e, std::string(name).c_str());
            names.merge(n.names);
            cargs.emplace_back(n.ir);
        } else if (const Data* d = std::get_if<Data>(&a)) {
            cargs.emplace_back(catalogue::ImageArg{d->image(), d->name()});
        } else if (const double* v = std::get_if<double>(&a)) {
            cargs.emplace_back(*v);
        } else if (const auto* ints = std::get_if<std::vector<int>>(&a)) {
            cargs.emplace_back(*ints);
        } else {
            cargs.emplace_back(std::get<std::string>(a));
        }
    }
    catalogue::Built built = catalogue::call(name, cargs);
    if (auto* term = std::get_if<ir::Term>(&built)) {
        auto d = std::make_shared<detail::ProblemData>();
        d->names = std::move(names);
        detail::register_term_inputs(*term, d->names);
        detail::Term t;
        t.ir = std::move(*term);
        t.base_weight = t.ir.weight;
        d->terms.push_back(std::move(t));
        return Problem(std::move(d));
    }
    // an operator's named images: those it holds (its card set their names on the nodes it built)
    auto n = std::make_shared<detail::ExprNode>();
    n->ir = std::move(std::get<ir::Node>(built));
    for (const Argument& a : args)
        if (const Data* d = std::get_if<Data>(&a)) names.add_input(d->name(), d->image());
    n->names = std::move(names);
    return Expr(std::move(n));
}

}  // namespace proxgen::rt
