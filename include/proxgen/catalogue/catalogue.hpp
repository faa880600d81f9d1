// The catalogue as a whole: every card (the generated index lists each file of
// proxgen/catalogue/ops/ and proxgen/catalogue/penalties/, so adding a card is adding its file)
// and the by-name entries the run-time API, the problem files and Python build from.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "proxgen/catalogue/card.hpp"

namespace proxgen::catalogue {

/// Every operator card and every penalty card, in file-name order.
std::span<const OpCard* const> op_cards();
std::span<const PenaltyCard* const> penalty_cards();

/// Every by-name entry of every card: operators first, then penalties, each card's in its order.
const std::vector<const Entry*>& entries();
/// The entry of that name, or nullptr.
const Entry* find(std::string_view name);
/// Builds name(args...) with the card's checks and sentences; unknown names, wrong argument counts
/// and argument kinds are Errors naming the entry and the parameter.
Built call(std::string_view name, const std::vector<Arg>& args);

}  // namespace proxgen::catalogue
