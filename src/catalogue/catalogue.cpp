// The catalogue's by-name entries, gathered from the cards of the generated index.
#include "proxgen/catalogue/catalogue.hpp"

namespace proxgen::catalogue {

const std::vector<const Entry*>& entries() {
    static const std::vector<const Entry*> all = [] {
        std::vector<const Entry*> e;
        for (const OpCard* c : op_cards())
            for (const Entry& x : c->entries()) e.push_back(&x);
        for (const PenaltyCard* c : penalty_cards())
            for (const Entry& x : c->entries()) e.push_back(&x);
        return e;
    }();
    return all;
}

const Entry* find(std::string_view name) {
    for (const Entry* e : entries())
        if (e->signature.name == name) return e;
    return nullptr;
}

Built call(std::string_view name, const std::vector<Arg>& args) {
    const Entry* e = find(name);
    if (!e) fail("unknown operator or penalty '{}'", name);
    return e->build(Args(e->signature, args));
}

}  // namespace proxgen::catalogue
