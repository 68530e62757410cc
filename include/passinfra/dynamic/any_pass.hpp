// passinfra/dynamic/any_pass.hpp — a pass erased into a value.
//
// AnyPass<IR>(pass)                   any pass (static types, Sequentials, lambdas, DynamicSequential)
// AnyPass<IR>(pass, required)         a pass whose requirements are given as AnyPasses
//                                     (what PassRegistry resolves names into)
// p.info()                            name, opt_level, required names -- owned by the AnyPass
// p.transform(ir, ctx)                the body, under any context (wrapped in a ContextRef)
// p.run_required(ir, ctx)             SPEC §4 step 2: the passes it requires, through run()
// p(ir, ctx) / p(ir)                  run(p, ir, ctx) / under PassContext<IR>::current()
// p.target<P>()                       the erased pass, if it is a P
// p.runs_required()                   whether run_required runs what info().required names
// p.visit_statistics(visitor)         the pass's counters and those of what it holds (SPEC §13.2)
// p.nesting_depth()                   how deeply passes nest in it (a plain pass: 1)
// p.preserved_analyses()              the erased pass's declaration (SPEC §10.4): its
//                                     preserved_analyses() if it has one, else its type's
//                                     preserves<...> / preserves_all (none() if it declares nothing)
// max_pipeline_depth                  256: how deeply passes may nest in a pipeline
//
// Copies share the erased pass, which is immutable. A pass made from a
// static type keeps its `required` types (resolved statically); a pass made
// with a list of required AnyPasses runs those.
//
// Nesting is bounded: running, printing and destroying a pipeline recurse
// once per level, so a pass may nest at most max_pipeline_depth (256) levels
// deep, in pipeline text and in code alike. nesting_depth() is 1 for a plain
// pass, 1 + the deepest child for a DynamicSequential or a static Sequential,
// and at least 1 + the deepest required pass for a pass given required
// AnyPasses. Making a deeper one (AnyPass of a Sequential, AnyPass(pass,
// required), DynamicSequential's constructors and push_back) throws
// passinfra::Error naming the limit, so no route builds one.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "passinfra/core/error.hpp"
#include "passinfra/core/pass.hpp"
#include "passinfra/core/preserved_analyses.hpp"
#include "passinfra/core/run.hpp"
#include "passinfra/core/sequential.hpp"
#include "passinfra/core/statistic.hpp"
#include "passinfra/detail/std_algorithm.hpp"
#include "passinfra/detail/type_name.hpp"  // dependent_t
#include "passinfra/dynamic/context_ref.hpp"

namespace passinfra {

// max_pipeline_depth: how deeply passes may nest in a pipeline (pipeline
// text and pipelines built in code). Far below what overflows an 8 MB stack
// in an unoptimized, sanitized build.
inline constexpr std::size_t max_pipeline_depth = 256;

template <class IR>
class AnyPass;

namespace detail {

template <class T>
inline constexpr bool is_static_sequential = false;
template <class... Ps>
inline constexpr bool is_static_sequential<Sequential<Ps...>> = true;

// nesting_depth(pass): see the header comment. A pass that knows its own
// depth (AnyPass, DynamicSequential, RegistryPass) says it.
template <class P>
std::size_t nesting_depth(const P& pass) {
  if constexpr (requires { pass.nesting_depth(); }) {
    return pass.nesting_depth();
  } else if constexpr (is_static_sequential<P>) {
    std::size_t deepest = 0;
    pass.for_each_child([&](const auto& child) { deepest = std::max(deepest, nesting_depth(child)); });
    return deepest + 1;
  } else {
    return 1;
  }
}

// check_nesting_depth(depth, what): an Error when depth is over the limit.
template <class = void>
void check_nesting_depth(std::size_t depth, std::string_view what) {
  if (depth > max_pipeline_depth) [[unlikely]] {
    throw Error(std::string(what) + ": passes nested more than " + std::to_string(max_pipeline_depth) +
                " levels deep; expected at most " + std::to_string(max_pipeline_depth) +
                " levels of nesting (passinfra::max_pipeline_depth)");
  }
}

template <class T>
inline constexpr bool is_any_pass = false;
template <class IR>
inline constexpr bool is_any_pass<AnyPass<IR>> = true;

// The Concept half of AnyPass.
template <class IR>
struct PassConcept {
  dependent_t<std::string, IR> name;
  int opt_level = 0;
  // (Spelled dependently, so that what set_info and refresh_views call is
  // instantiated only with them: see dependent_t.)
  dependent_t<std::vector<std::string>, IR> required_names;
  dependent_t<std::vector<std::string_view>, IR> required_views;

  virtual ~PassConcept() = default;
  virtual IR transform(IR ir, ContextRef<IR>& ctx) const = 0;
  virtual IR run_required(IR ir, ContextRef<IR>& ctx) const = 0;
  virtual const std::type_info& type() const noexcept = 0;
  virtual const void* object() const noexcept = 0;
  // Whether run_required runs the passes info().required names (static
  // `required` types, or AnyPasses given at construction), or they are only names.
  virtual bool runs_required() const noexcept = 0;
  // The counters of the pass and of what it holds (core/statistic.hpp).
  virtual void visit_statistics(StatisticsVisitor& visitor) const = 0;

  PassInfo cached_info;       // views into the strings above
  bool has_required = false;  // !required_views.empty()
  // What the pass declares it preserves (SPEC §10.4): fixed at construction,
  // like its info; run() unites it with the marks its body makes.
  dependent_t<PreservedAnalyses, IR> preserved{};
  std::size_t depth = 1;  // nesting_depth(), at most max_pipeline_depth

  const PassInfo& info() const noexcept { return cached_info; }

  void set_info(const PassInfo& info) {
    name = std::string(info.name);
    opt_level = info.opt_level;
    required_names.assign(info.required.begin(), info.required.end());
    refresh_views();
  }
  void refresh_views() {
    required_views.assign(required_names.begin(), required_names.end());
    cached_info = PassInfo{name, opt_level, required_views};
    has_required = !required_views.empty();
  }
};

// The Model half: a pass P, and the AnyPasses it requires when they are
// given at run time rather than by P's `required` types.
template <class IR, class P>
struct PassModel final : PassConcept<IR> {
  P pass;
  std::vector<AnyPass<IR>> required_passes;
  bool dynamic_required = false;

  explicit PassModel(P p) : pass(std::move(p)) {
    this->set_info(info_of<P>(pass));
    if constexpr (requires { pass.preserved_analyses(); }) {
      this->preserved = pass.preserved_analyses();
    } else if constexpr (check_preserves<P>()) {
      this->preserved = preserved_analyses_of<P>;
    }
  }

  IR transform(IR ir, ContextRef<IR>& ctx) const override { return pass.transform(std::move(ir), ctx); }

  IR run_required(IR ir, ContextRef<IR>& ctx) const override {
    if (dynamic_required) {
      for (const auto& r : required_passes) ir = run(r, std::move(ir), ctx);
      return ir;
    }
    return passinfra::run_required(pass, std::move(ir), ctx);
  }

  const std::type_info& type() const noexcept override { return typeid(P); }
  const void* object() const noexcept override { return &pass; }

  void visit_statistics(StatisticsVisitor& visitor) const override {
    detail::visit_statistics(pass, visitor);
    for (const auto& r : required_passes) r.visit_statistics(visitor);
  }

  bool runs_required() const noexcept override {
    if (dynamic_required) return true;
    if constexpr (requires { pass.runs_required(); }) {
      return pass.runs_required();
    } else {
      return required_passes_t<P>::size > 0 || this->required_names.empty();
    }
  }
};

}  // namespace detail

template <class IR>
class AnyPass : public CallablePass<AnyPass<IR>> {
 public:
  template <class P>
    requires(!std::is_same_v<std::remove_cvref_t<P>, AnyPass>)
  AnyPass(P pass)  // NOLINT(google-explicit-constructor): pipelines are lists of passes
      : impl_(make_model(std::move(pass))) {}

  // A pass whose requirements are the given passes, in order (their names
  // become info().required).
  template <class P>
  AnyPass(P pass, std::vector<AnyPass> required) {
    auto model = make_model(std::move(pass));
    model->required_names.clear();
    for (const auto& r : required) model->required_names.emplace_back(r.info().name);
    model->refresh_views();
    for (const auto& r : required) model->depth = std::max(model->depth, r.nesting_depth() + 1);
    detail::check_nesting_depth(model->depth, "AnyPass<IR>(pass, required)");
    model->required_passes = std::move(required);
    model->dynamic_required = true;
    impl_ = std::move(model);
  }

  const PassInfo& info() const noexcept { return impl_->info(); }

  // nesting_depth(): how deeply passes nest in it (see the header comment).
  std::size_t nesting_depth() const noexcept { return impl_->depth; }

  // preserved_analyses(): what the erased pass declares it preserves (SPEC
  // §10.4); run() unites it with the marks the body makes.
  const PreservedAnalyses& preserved_analyses() const noexcept { return impl_->preserved; }

  // has_required(): whether run_required has anything to run.
  bool has_required() const noexcept { return impl_->has_required; }

  template <class Ctx>
  IR transform(IR ir, Ctx& ctx) const {
    if constexpr (std::is_same_v<Ctx, ContextRef<IR>>) {
      return impl_->transform(std::move(ir), ctx);
    } else {
      ContextRef<IR> ref(ctx);
      return impl_->transform(std::move(ir), ref);
    }
  }

  template <class Ctx>
  IR run_required(IR ir, Ctx& ctx) const {
    if constexpr (std::is_same_v<Ctx, ContextRef<IR>>) {
      return impl_->run_required(std::move(ir), ctx);
    } else {
      ContextRef<IR> ref(ctx);
      return impl_->run_required(std::move(ir), ref);
    }
  }

  // visit_statistics(visitor): the counters of the erased pass, then of its
  // required passes (passinfra::collect_statistics, statistics_report.hpp).
  void visit_statistics(StatisticsVisitor& visitor) const { impl_->visit_statistics(visitor); }

  // runs_required(): false when info().required lists names that run_required
  // does not run (PassRegistry resolves those through the registry).
  bool runs_required() const noexcept { return impl_->runs_required(); }

  template <class P>
  const P* target() const noexcept {
    return impl_->type() == typeid(P) ? static_cast<const P*>(impl_->object()) : nullptr;
  }

 private:
  template <class P>
  static std::shared_ptr<detail::PassModel<IR, P>> make_model(P pass) {
    static_assert(detail::check_pass<P, detail::Entry::run>());
    static_assert(HasTransform<P, IR, ContextRef<IR>>,
                  "passinfra::AnyPass<IR>(pass): the pass P has no `transform(IR, ctx&) const` that accepts a "
                  "passinfra::ContextRef<IR> (write the context parameter as `auto& ctx`)");
    const std::size_t depth = detail::nesting_depth(pass);
    detail::check_nesting_depth(depth, "AnyPass<IR>(pass)");
    auto model = std::make_shared<detail::PassModel<IR, P>>(std::move(pass));
    model->depth = depth;
    return model;
  }

  std::shared_ptr<detail::PassConcept<IR>> impl_;
};

}  // namespace passinfra
