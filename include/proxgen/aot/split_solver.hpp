// What the generated solvers of the split algorithms (linearized ADMM, ADMM: z_i = K_i x with scaled
// duals u_i) share beyond SolverBase: x (one buffer per variable), z_i and u_i per Ψ term with the
// buffers their next values go to, the residuals' partial sums, and the entry points that read them
// (set_x0, x(j)), the residual sums and the dual's rescaling the cards ask their runners for.
// Runtime-only (no libHalide).
//
// `Solver` provides, besides SolverBase's: restart() (zeroes the split state through
// reset_split() and restarts its card).
#pragma once

#include <string>
#include <vector>

#include "proxgen/algorithms/split.hpp"
#include "proxgen/aot/solver_base.hpp"

namespace proxgen::aot {

template <class Description, class Solver>
class SplitSolver : public SolverBase<Description, Solver> {
    using Base = SolverBase<Description, Solver>;

public:
    using typename Base::Buffer;
    using Base::x;  // x() beside x(j) below

    /// set_x0 for several variables: one start per variable, in init_variables' order.
    Status set_x0_variables(const std::vector<Buffer>& x0) {
        last_error_message().clear();
        if (Status s = this->check_x0(x0); s != Status::ok) return s;
        for (int j = 0; j < Base::n_var; ++j) {
            x_[j].set_device_dirty(false);  // overwritten whole: what a GPU last wrote there is stale
            x_[j].copy_from(x0[j]);
            x_[j].set_host_dirty();
        }
        this->self().restart();
        return Status::ok;
    }

    /// Variable j's value (Description::variable_names[j]; x() is x(0)), copied back from the device
    /// for GPU targets, or, where x's only constraint is split as a term on x itself
    /// (Description::solution_term), its split copy z, which meets the constraint exactly where x
    /// may miss it by the primal residual — what pg::solve returns. An empty buffer, and a message
    /// in last_error(), for a j out of range.
    const Buffer& x(int j) {
        if (!this->variable_index(j) || !this->ready_) return this->no_variable_;
        Buffer& b = Description::solution_term >= 0 ? z_[Description::solution_term] : x_[j];
        b.copy_to_host();
        return b;
    }

protected:
    using Variables = typename Base::Variables;
    static constexpr int n_psi = Description::psi_terms;
    /// The residual's quantities (split_residual_shapes): Kᵀ(z − z_prev) and Kᵀu per variable,
    /// then (K_i x − z_i, K_i x, z_i) per Ψ term.
    static constexpr int residual_quantities = 2 * Base::n_var + 3 * n_psi;

    /// x (zero) and the split state for the variables' extents init checked; throws
    /// std::bad_alloc (init turns it into Status::out_of_memory).
    void allocate_split() {
        x_ = this->variables_buffers();
        for (auto& b : x_) {
            b.fill(0.0f);
            b.set_host_dirty();  // (a GPU target copies it to the device at the first step)
        }
        for (auto* list : {&z_, &z_next_, &u_, &u_next_}) list->clear();
        psi_elements_ = 0;
        std::vector<std::vector<int>> psi_shapes;
        for (int i = 0; i < n_psi; ++i) {
            const std::vector<int> s = Description::psi_shape(i, this->shapes_, this->images_.data());
            for (auto* list : {&z_, &z_next_, &u_, &u_next_}) list->push_back(state_buffer(s));
            psi_elements_ += z_.back().number_of_elements();
            psi_shapes.push_back(s);
        }
        partials_ = this->partial_sums_buffer(psi_shapes, residual_quantities);
    }

    /// z = u = 0 (allocates nothing: init made every buffer).
    void reset_split() {
        for (auto* list : {&z_, &z_next_, &u_, &u_next_})
            for (Buffer& b : *list) {
                b.set_device_dirty(false);  // overwritten whole: what a GPU last wrote there is stale
                b.fill(0.0f);
                b.set_host_dirty();
            }
    }

    /// After a step wrote z_next_ (and u_next_): they become the state (z_next_: the previous z).
    void advance_split(bool keep_dual) {
        std::swap(z_, z_next_);
        if (keep_dual) std::swap(u_, u_next_);
    }

    /// The separate (z, u) step's outputs: per term z⁺ then u⁺.
    void zu_outputs(std::vector<void*>& a) {
        for (int i = 0; i < n_psi; ++i) {
            a.push_back(z_next_[i].raw_buffer());
            a.push_back(u_next_[i].raw_buffer());
        }
    }

    // What the split cards' runners answer alike (proxgen/algorithms/split.hpp).
    /// The last measured step's sums of squares, from the pipelines' partial sums.
    bool sums(algorithms::SplitSums& out) {
        double totals[residual_quantities] = {};
        Base::partial_totals(partials_, totals);
        std::size_t n = 0;
        for (int j = 0; j < Base::n_var; ++j) n += x_[j].number_of_elements();
        out = algorithms::split_sums(totals, Base::n_var, n_psi, double(n), double(psi_elements_));
        return true;
    }
    /// u ← u · factor on the host (ρ changed: the scaled dual follows), as the JIT's.
    void scale_dual(double factor) {
        for (Buffer& u : u_) {
            u.copy_to_host();
            float* d = u.data();
            for (std::size_t k = 0, n = u.number_of_elements(); k < n; ++k) d[k] = float(d[k] * factor);
            u.set_host_dirty();
        }
    }

    Variables x_;
    std::vector<Buffer> z_, z_next_, u_, u_next_;  // per Ψ term
    Buffer partials_;  // the residual quantities' partial sums of squares
    std::size_t psi_elements_ = 0;
};

}  // namespace proxgen::aot
