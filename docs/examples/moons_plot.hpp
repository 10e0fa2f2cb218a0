// docs/examples/moons_plot.hpp: the pictures of the two-moons examples, as SVG text: the plane
// coloured by a trained network's decision, with the points on top, and the loss per step.
#pragma once

#include <zerograd/nn/datasets.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace moons_plot {

// The plotted window, in data coordinates, and its size on the page.
constexpr double x_low = -1.5, x_high = 2.5, y_low = -1.25, y_high = 1.5;
constexpr int width = 480, height = 330;
// The decision is drawn on a grid of cells, evaluated at their centres.
constexpr int columns = 160, rows = 110;

inline double cell_x(int column) { return x_low + (column + 0.5) * (x_high - x_low) / columns; }
inline double cell_y(int row) { return y_high - (row + 0.5) * (y_high - y_low) / rows; }

inline double page_x(double x) { return (x - x_low) / (x_high - x_low) * width; }
inline double page_y(double y) { return (y_high - y) / (y_high - y_low) * height; }

// Fixed precision, so the files are the same from every compiler.
inline std::string number(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", x);
    return text;
}

/// The plane coloured by `positive` (the network's decision for class 1 at each cell, row by row
/// from the top), then the points coloured by class.
inline std::string boundary_svg(const std::vector<bool>& positive, const zg::nn::dataset& data) {
    const double cell_width = double(width) / columns, cell_height = double(height) / rows;
    std::ostringstream svg;
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
        << "\" viewBox=\"0 0 " << width << ' ' << height << "\">\n";
    // One rectangle per run of equal decisions along a row keeps the file small.
    for (int row = 0; row < rows; ++row) {
        int run_start = 0;
        for (int column = 1; column <= columns; ++column) {
            const bool run_positive = positive[row * columns + run_start];
            if (column < columns && positive[row * columns + column] == run_positive) continue;
            svg << "<rect x=\"" << number(run_start * cell_width) << "\" y=\""
                << number(row * cell_height) << "\" width=\""
                << number((column - run_start) * cell_width) << "\" height=\""
                << number(cell_height + 0.05) << "\" fill=\""
                << (run_positive ? "#f6d5c8" : "#cfdcf2") << "\"/>\n";
            run_start = column;
        }
    }
    for (std::size_t i = 0; i < data.size(); ++i)
        svg << "<circle cx=\"" << number(page_x(data.x[i][0])) << "\" cy=\""
            << number(page_y(data.x[i][1])) << "\" r=\"4\" fill=\""
            << (data.labels[i] == 1 ? "#d2491d" : "#2a5db0") << "\" stroke=\"#222\" "
            << "stroke-width=\"0.6\"/>\n";
    svg << "</svg>\n";
    return svg.str();
}

/// The loss at each step, with the axes labelled and `what` naming the loss.
inline std::string loss_svg(const std::vector<double>& losses, const std::string& what) {
    constexpr double left = 50, right = 470, top = 20, bottom = 260;
    double highest = 0;
    for (const double loss : losses)
        highest = std::max(highest, loss);
    const double y_top = std::ceil(highest * 5) / 5; // the next multiple of 0.2
    const double steps = double(losses.size());
    const int tick = losses.size() > 200 ? 100 : 20;
    const auto sx = [&](double step) { return left + step / steps * (right - left); };
    const auto sy = [&](double loss) { return bottom - loss / y_top * (bottom - top); };
    std::ostringstream svg;
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"480\" height=\"300\" "
        << "viewBox=\"0 0 480 300\" font-family=\"sans-serif\" font-size=\"11\">\n"
        << "<rect width=\"480\" height=\"300\" fill=\"white\"/>\n"
        << "<path d=\"M" << left << ' ' << top << "V" << bottom << "H" << right
        << "\" fill=\"none\" stroke=\"#444\"/>\n";
    for (int step = 0; step <= int(losses.size()); step += tick)
        svg << "<text x=\"" << number(sx(step)) << "\" y=\"" << bottom + 15
            << "\" text-anchor=\"middle\">" << step << "</text>\n";
    for (double loss = 0; loss <= y_top + 1e-9; loss += 0.2)
        svg << "<text x=\"" << left - 6 << "\" y=\"" << number(sy(loss) + 4)
            << "\" text-anchor=\"end\">" << number(loss).substr(0, 3) << "</text>\n";
    svg << "<text x=\"" << (left + right) / 2 << "\" y=\"290\" text-anchor=\"middle\">step</text>\n"
        << "<text x=\"" << right << "\" y=\"" << top << "\" text-anchor=\"end\">" << what
        << "</text>\n"
        << "<polyline fill=\"none\" stroke=\"#d2491d\" stroke-width=\"2\" points=\"";
    for (std::size_t step = 0; step < losses.size(); ++step)
        svg << (step ? " " : "") << number(sx(double(step))) << ',' << number(sy(losses[step]));
    svg << "\"/>\n</svg>\n";
    return svg.str();
}

inline void write(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

} // namespace moons_plot
